'use strict';
// The dashboard (docs/dashboard.md) in a real headless Chromium: log in with
// admin.token, watch the connection count move as pusher-js clients connect,
// see a subscription and an API event appear in the debug console, send an
// event with the event creator and receive it with pusher-js. Screenshots are
// kept in e2e/.tmp for people to look at.

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startRoost, liveChildren, REPO_ROOT } = require('../lib/roost');
const { Clients, subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const browser = require('../lib/browser');

const TOKEN = 'e2e-dashboard-token-0123456789';
const SHOTS = path.join(REPO_ROOT, 'e2e', '.tmp');
const skip = !browser.available() && process.env.CI !== 'true'
  ? `${browser.CHROMIUM} is not installed (apt-get install chromium)` : false;

describe('dashboard in Chromium', { skip }, () => {
  let server;
  let clients;
  let chrome;
  let page;

  before(async () => {
    server = await startRoost({ env: { ROOST_ADMIN_TOKEN: TOKEN } });
    clients = new Clients(server);
    chrome = await browser.launch();
    page = chrome.page;
    fs.mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    if (chrome) await chrome.close();
    if (clients) await clients.closeAll();
    if (server) await server.stop();
    assert.equal(liveChildren(), 0, 'roost processes left running');
  });

  // connections reads the overview's connection count as the page shows it.
  const connections = async () => Number((await page.textContent('#card-connections .value')).replace(/,/g, ''));

  it('asks for the token and refuses a wrong one', async () => {
    await page.goto(`${server.url}/dashboard`);
    await page.waitForSelector('#login:not([hidden])');
    await page.fill('#token', 'wrong-token-0123456789');
    await page.press('#token', 'Enter');
    await waitFor(async () => (await page.textContent('#login-error')).includes('wrong admin token'),
      { what: 'the login error' });
    assert.equal(await page.isHidden('#app'), true);
  });

  it('logs in and shows the connection count move', async () => {
    await page.fill('#token', TOKEN);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#app:not([hidden])');
    await waitFor(async () => (await connections()) === 0, { what: 'no connections shown at first' });
    await clients.pusherJS();
    await clients.pusherJS();
    await waitFor(async () => (await connections()) === 2, { what: 'the page showing 2 connections' });
  });

  it('streams a subscription and an API event into the console', async () => {
    const name = `dash-${process.pid}`;
    await page.keyboard.press('Tab'); // the tabs are reachable by keyboard
    await page.focus('#tab-overview');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-console', 'aria-selected'), 'true');
    await page.selectOption('#console-app', server.appId);
    await page.click('#console-form button[type=submit]');
    await waitFor(async () => (await page.textContent('#console-status')).startsWith('Watching 1'),
      { what: 'the console watching app 1' });
    const pusher = await clients.pusherJS();
    const channel = await subscribe(pusher, name);
    await page.waitForSelector(`#console-log li[data-type=subscribed] >> text=${name}`);
    const res = await sdk(server).trigger(name, 'order-paid', { total: 42 });
    assert.equal(res.status, 200);
    await page.waitForSelector('#console-log li[data-type=api_event] >> text=order-paid');
    const line = await page.textContent('#console-log li[data-type=api_event]');
    assert.match(line, /"total":42/);
    await waitFor(() => received(channel, 'order-paid').length === 1, { what: 'pusher-js got the API event' });
  });

  it('sends an event from the event creator that pusher-js receives', async () => {
    const name = `creator-${process.pid}`;
    const pusher = await clients.pusherJS();
    const channel = await subscribe(pusher, name);
    await page.click('#tab-send');
    await page.selectOption('#send-app', server.appId);
    await page.fill('#send-channels', name);
    await page.fill('#send-event', 'from-dashboard');
    await page.fill('#send-data', '{"hello":"browser"}');
    await page.click('#send-form button[type=submit]');
    await waitFor(async () => (await page.textContent('#send-result')).includes('answered 200'),
      { what: 'the HTTP API answer shown' });
    await waitFor(() => received(channel, 'from-dashboard').length === 1,
      { what: `from-dashboard on ${name}; got ${JSON.stringify(channel.received)}` });
    assert.deepEqual(received(channel, 'from-dashboard'), [{ hello: 'browser' }]);
  });

  it('shows the API refusal of an event over its limits', async () => {
    await page.fill('#send-event', 'x'.repeat(201));
    await page.click('#send-form button[type=submit]');
    await waitFor(async () => (await page.textContent('#send-result')).includes('answered 400'),
      { what: 'the HTTP API refusal shown' });
  });

  it('fits a phone screen and keeps screenshots', async () => {
    await page.click('#tab-overview');
    // Four pusher-js clients are open, two of them subscribed.
    await waitFor(async () => (await connections()) === 4 &&
      (await page.textContent('#card-channels .value')) === '2', { what: '4 connections and 2 channels shown' });
    await waitFor(async () => (await page.$$('#cards .card polyline')).length > 0,
      { what: 'plots drawn from the history', timeout: 20000 });
    await page.screenshot({ path: path.join(SHOTS, 'dashboard.png'), fullPage: true });
    await page.click('#tab-console');
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-console.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click('#tab-overview');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than a phone screen`);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-phone.png'), fullPage: true });
  });
});
