'use strict';
// permessage-deflate (RFC 7692) with a browser's own WebSocket: pusher-js's
// web build in headless Chromium, which offers the extension on every
// socket. Chromium's DevTools protocol shows the handshake as the browser
// saw it, so the tests read the extension roost accepted from there: an app
// with `compression: true` accepts it, one without answers with none. Events
// published through the HTTP API (a typical 1 KB one and one near the 10 KB
// limit) and a client event between two pages on a private channel must
// arrive intact through the compressed path.

const assert = require('node:assert/strict');
const { describe, before, after } = require('node:test');
const path = require('node:path');
const browser = require('../lib/browser');
const { describeServer, uniqueName } = require('../lib/suite');
const { sdk } = require('../lib/clients');
const { skipForAppsDB } = require('../lib/features');
const { waitFor } = require('../lib/poll');
const { REPO_ROOT } = require('../lib/roost');

const ACCEPTED = 'permessage-deflate; server_no_context_takeover; client_no_context_takeover';
const ZIPPED = { id: 'zipped', key: 'key-zipped', secret: 'secret-zipped', client_events: true, compression: true };
const PLAIN = { id: 'plain', key: 'key-plain', secret: 'secret-plain', client_events: true };
const PUSHER_JS = path.join(REPO_ROOT, 'e2e', 'node_modules', 'pusher-js', 'dist', 'web', 'pusher.min.js');

const skip = !browser.available() && process.env.CI !== 'true'
  ? `${browser.CHROMIUM} is not installed (apt-get install chromium)` : false;

// eventOf returns event data whose JSON is about size bytes: records of an
// order feed, varied enough that compression has work to do.
function eventOf(size, tag) {
  const items = [];
  for (let i = 0; JSON.stringify({ tag, items }).length < size; i++) {
    items.push({ sku: `SKU-${(i * 7919) % 10007}`, qty: (i % 9) + 1, price: ((i * 37) % 1000) / 10, note: `line ${i} of ${tag}` });
  }
  return { tag, items };
}

// appSDK is the server SDK for one of server's apps.
const appSDK = (server, app) => sdk(server, { appId: app.id, key: app.key, secret: app.secret });

// lowerKeys returns headers with lower-case names (DevTools keeps the case
// the peer used).
const lowerKeys = (h) => Object.fromEntries(Object.entries(h || {}).map(([k, v]) => [k.toLowerCase(), v]));

/**
 * openPage opens a page of chrome on server's origin running one pusher-js
 * client of app, authorized by the app's secret in this process. It returns
 * { offered, accepted } (the handshake headers DevTools reported, as the
 * browser sent and received them) and helpers to drive the client.
 */
async function openPage(chrome, server, app) {
  const page = await chrome.context.newPage();
  const cdp = await chrome.context.newCDPSession(page);
  const hs = { offered: [], accepted: [] };
  cdp.on('Network.webSocketWillSendHandshakeRequest', (e) => hs.offered.push(lowerKeys(e.request.headers)));
  cdp.on('Network.webSocketHandshakeResponseReceived', (e) => hs.accepted.push(lowerKeys(e.response.headers)));
  await cdp.send('Network.enable');
  await page.goto(`${server.url}/up`);
  const signer = appSDK(server, app);
  await page.exposeFunction('roostAuthorize', (socketId, channel) => signer.authorizeChannel(socketId, channel));
  await page.addScriptTag({ path: PUSHER_JS });
  await page.evaluate(({ key, host, port, tls }) => {
    window.got = [];
    window.client = new window.Pusher(key, {
      cluster: 'mt1', wsHost: host, wsPort: port, wssPort: port, forceTLS: tls, enabledTransports: ['ws', 'wss'],
      channelAuthorization: {
        customHandler: (p, cb) => window.roostAuthorize(p.socketId, p.channelName).then((a) => cb(null, a), (e) => cb(e, null)),
      },
    });
  }, { key: app.key, host: server.host, port: server.port, tls: server.tls });
  await page.waitForFunction(() => window.client.connection.state === 'connected');
  return {
    page, ...hs,
    async subscribe(name) {
      await page.evaluate((n) => new Promise((resolve, reject) => {
        const ch = window.client.subscribe(n);
        ch.bind_global((event, data) => { if (!event.startsWith('pusher')) window.got.push({ event, data }); });
        ch.bind('pusher:subscription_succeeded', resolve);
        ch.bind('pusher:subscription_error', (e) => reject(new Error(JSON.stringify(e))));
      }), name);
    },
    trigger: (name, event, data) => page.evaluate(([n, e, d]) => window.client.channel(n).trigger(e, d), [name, event, data]),
    async events(event, n = 1) {
      const got = () => page.evaluate((e) => window.got.filter((r) => r.event === e).map((r) => r.data), event);
      await waitFor(async () => (await got()).length >= n, { what: `${n} x ${event} in Chromium` });
      return got();
    },
    close: () => page.close(),
  };
}

describe('compression in Chromium', { skip }, () => {
  let chrome;
  before(async () => { chrome = await browser.launch(); });
  after(async () => { if (chrome) await chrome.close(); });

  describeServer('compression with pusher-js in Chromium', { apps: [ZIPPED, PLAIN] }, (test) => {
    if (skipForAppsDB(test)) return;

    test('negotiated for an app with compression; API and client events arrive intact', async ({ server }) => {
      const name = uniqueName('private-chromium-zip');
      const a = await openPage(chrome, server, ZIPPED);
      const b = await openPage(chrome, server, ZIPPED);
      try {
        for (const p of [a, b]) {
          assert.equal(p.accepted.length, 1, 'one WebSocket handshake per page');
          assert.match(p.offered[0]['sec-websocket-extensions'], /permessage-deflate/, 'Chromium offered the extension');
          assert.equal(p.accepted[0]['sec-websocket-extensions'], ACCEPTED);
        }
        await a.subscribe(name);
        await b.subscribe(name);
        const small = eventOf(1024, 'api-1k');
        const large = eventOf(9 * 1024, 'api-9k');
        await appSDK(server, ZIPPED).trigger(name, 'order-1k', small);
        await appSDK(server, ZIPPED).trigger(name, 'order-9k', large);
        for (const p of [a, b]) {
          assert.deepEqual(await p.events('order-1k'), [small]);
          assert.deepEqual(await p.events('order-9k'), [large]);
        }
        const sent = eventOf(4 * 1024, 'client');
        assert.equal(await a.trigger(name, 'client-order', sent), true);
        assert.deepEqual(await b.events('client-order'), [sent]);
        await b.trigger(name, 'client-ack', { ok: true });
        assert.deepEqual(await a.events('client-ack'), [{ ok: true }]);
        assert.deepEqual(await a.events('client-order', 0), [], 'a client event does not come back to its sender');
      } finally {
        await a.close();
        await b.close();
      }
    });

    test('not negotiated for an app without compression', async ({ server }) => {
      const name = uniqueName('private-chromium-plain');
      const p = await openPage(chrome, server, PLAIN);
      try {
        assert.match(p.offered[0]['sec-websocket-extensions'], /permessage-deflate/, 'Chromium offered the extension');
        assert.equal(p.accepted[0]['sec-websocket-extensions'], undefined, 'the 101 accepts no extension');
        await p.subscribe(name);
        const small = eventOf(1024, 'plain-1k');
        await appSDK(server, PLAIN).trigger(name, 'order-1k', small);
        assert.deepEqual(await p.events('order-1k'), [small]);
      } finally {
        await p.close();
      }
    });
  });
});
