'use strict';
// The dashboard's cluster view in a real headless Chromium: two nodes over
// Redis, the page of node 1 lists both nodes with their figures and their
// sum, and the sum moves when a pusher-js client connects to node 2.

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('../lib/roost');
const { startCluster, redisUnavailable } = require('../lib/cluster');
const { Clients } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const browser = require('../lib/browser');

const TOKEN = 'e2e-dashboard-token-0123456789';
const SHOTS = path.join(REPO_ROOT, 'e2e', '.tmp');
const missing = !browser.available() ? `${browser.CHROMIUM} is not installed` : redisUnavailable();
const skip = missing && process.env.CI !== 'true' ? missing : false;

describe('dashboard cluster view in Chromium', { skip }, () => {
  let cluster;
  let chrome;
  let page;
  let clients;

  before(async () => {
    cluster = await startCluster({ nodes: 2, env: { ROOST_ADMIN_TOKEN: TOKEN } });
    clients = new Clients(cluster.nodes[1]);
    chrome = await browser.launch();
    page = chrome.page;
  });

  after(async () => {
    if (chrome) await chrome.close();
    if (clients) await clients.closeAll();
    if (cluster) await cluster.stop();
  });

  // rows returns the cluster table's cells, row by row.
  const rows = () => page.$$eval('#cluster-table tbody tr',
    (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));

  it('lists both nodes and sums their connections', async () => {
    await page.goto(`${cluster.nodes[0].url}/dashboard`);
    await page.fill('#token', TOKEN);
    await page.press('#token', 'Enter');
    await page.waitForSelector('#cluster:not([hidden])');
    await waitFor(async () => (await rows()).length === 3, { what: 'two nodes and their sum listed' });
    assert.match((await page.textContent('#redis')), /Redis link up/);
    await clients.pusherJS();
    await waitFor(async () => {
      const r = await rows();
      return r.length === 3 && r[2][0] === 'All 2 nodes' && r[2][1] === '1';
    }, { what: 'the sum showing the connection on node 2', timeout: 15000 });
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-cluster.png'), fullPage: true });
  });
});
