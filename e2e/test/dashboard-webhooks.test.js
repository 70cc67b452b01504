'use strict';
// The dashboard's webhook figures (docs/dashboard.md) in a real headless
// Chromium: app 1 posts channel_occupied to a receiver that answers 500, so
// the page shows the failed requests and retries grow and the waiting
// event's age, then the event dropped after retry_for (shortened here);
// once the receiver answers 200, the next event is shown sent. The page's
// figures are checked against roost's /metrics.

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startRoost, liveChildren, REPO_ROOT } = require('../lib/roost');
const { Clients, subscribe } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { startReceiver, waitHooks, metric } = require('../lib/webhooks');
const browser = require('../lib/browser');

const TOKEN = 'e2e-dashboard-token-0123456789';
const SHOTS = path.join(REPO_ROOT, 'e2e', '.tmp');
const APP = { id: '1', key: 'key-1', secret: 'secret-1' };
const skip = !browser.available() && process.env.CI !== 'true'
  ? `${browser.CHROMIUM} is not installed (apt-get install chromium)` : false;

describe('dashboard webhook figures in Chromium', { skip }, () => {
  let hooks;
  let server;
  let clients;
  let chrome;
  let page;

  before(async () => {
    hooks = await startReceiver([APP]);
    hooks.answer = () => 500;
    const apps = [{ ...APP, webhooks: [{ url: hooks.url(), event_types: ['channel_occupied'] }] }];
    server = await startRoost({ apps, env: { ROOST_ADMIN_TOKEN: TOKEN, ROOST_WEBHOOK_RETRY_FOR: '4s' } });
    clients = new Clients(server);
    chrome = await browser.launch();
    page = chrome.page;
  });

  after(async () => {
    if (chrome) await chrome.close();
    if (clients) await clients.closeAll();
    if (server) await server.stop();
    if (hooks) await hooks.close();
    assert.equal(liveChildren(), 0, 'roost processes left running');
  });

  // figure reads one of app 1's webhook figures as the page shows it.
  const figure = (name) => page.textContent(`#webhook-table tr[data-app="1"] td[data-figure=${name}]`);
  const count = async (name) => Number((await figure(name)).split(' ')[0].replace(/,/g, ''));

  it('shows a refused event retried, then dropped', async () => {
    await page.goto(`${server.url}/dashboard`);
    await page.fill('#token', TOKEN);
    await page.press('#token', 'Enter');
    await page.waitForSelector('#webhooks:not([hidden])');
    assert.equal(await count('failed'), 0);
    assert.equal(await figure('oldest'), '—');
    assert.equal(await figure('outbox'), '—', 'a single node has no outbox');

    const pusher = await clients.pusherJS();
    await subscribe(pusher, `hooked-${process.pid}`);
    await waitFor(async () => (await count('failed')) >= 1 && (await figure('oldest')).endsWith(' s'),
      { what: 'the first failure and the waiting event\'s age shown' });
    const failed = await count('failed');
    await waitFor(async () => (await count('failed')) > failed && (await count('retried')) >= 1,
      { what: 'more failures and a retry shown' });
    await waitFor(async () => (await figure('dropped')) === '1 (retry_expired 1)' &&
      (await figure('oldest')) === '—' && (await count('queued')) === 0,
    { what: 'the event dropped after retry_for', timeout: 15000 });
    assert.equal(await count('sent'), 0);
    assert.equal(await metric(server, 'roost_webhook_dropped_total{app="1",reason="retry_expired"}'), 1);
    assert.equal(await metric(server, 'roost_webhook_failed_attempts_total{app="1"}'), await count('failed'));
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-webhooks.png'), fullPage: true });
  });

  it('shows the next event sent once the receiver answers', async () => {
    hooks.answer = () => 200;
    const name = `answered-${process.pid}`;
    await subscribe(await clients.pusherJS(), name);
    await waitHooks(hooks, name, ['channel_occupied'], 10000);
    await waitFor(async () => (await count('sent')) === 1, { what: 'the sent event shown' });
    assert.equal(await metric(server, 'roost_webhook_sent_total{app="1"}'), 1);
  });
});
