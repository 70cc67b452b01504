'use strict';
// pusher-js falls back to HTTP on its own: its web build in headless
// Chromium, with its default transports, reaches roost through a small proxy
// that refuses every WebSocket upgrade (as some corporate proxies do). The
// page comes from another origin, so every fallback request is a
// cross-origin XMLHttpRequest behind a CORS preflight. pusher-js must end
// up on xhr_streaming and receive an API publish and a client event.

const assert = require('node:assert/strict');
const { describe } = require('node:test');
const http = require('node:http');
const https = require('node:https');
const fs = require('node:fs');
const path = require('node:path');
const browser = require('../lib/browser');
const { describeServer, uniqueName } = require('../lib/suite');
const { sdk } = require('../lib/clients');
const { REPO_ROOT } = require('../lib/roost');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const PUSHER_JS = path.join(REPO_ROOT, 'e2e', 'node_modules', 'pusher-js', 'dist', 'web', 'pusher.min.js');

const skip = !browser.available() && process.env.CI !== 'true'
  ? `${browser.CHROMIUM} is not installed (apt-get install chromium)` : false;

// listen starts server on 127.0.0.1:0 and resolves with its port.
function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

// noWebSocketProxy forwards plain HTTP to roost and refuses every upgrade;
// it counts what it refused and what it forwarded by path.
async function noWebSocketProxy(target) {
  const seen = { upgrades: 0, paths: [] };
  const client = target.tls ? https : http;
  const proxy = http.createServer((req, res) => {
    seen.paths.push(`${req.method} ${req.url.split('?')[0]}`);
    const up = client.request({ host: target.host, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  proxy.on('upgrade', (req, socket) => {
    seen.upgrades += 1;
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  const port = await listen(proxy);
  return { port, seen, close: () => { proxy.closeAllConnections(); proxy.close(); } };
}

// pageServer serves an empty page and pusher-js on an origin of its own.
async function pageServer() {
  const js = fs.readFileSync(PUSHER_JS);
  const srv = http.createServer((req, res) => {
    if (req.url === '/pusher.js') return res.end(js);
    res.setHeader('Content-Type', 'text/html');
    return res.end('<!doctype html><title>app</title>');
  });
  const port = await listen(srv);
  return { url: `http://127.0.0.1:${port}/`, close: () => { srv.closeAllConnections(); srv.close(); } };
}

describe('http fallback in Chromium', { skip }, () => {
describeServer('http fallback in a browser', { apps: APPS }, (test) => {
  test('behind a proxy that refuses WebSockets, pusher-js falls back to xhr_streaming by itself',
    async ({ server }) => {
      const proxy = await noWebSocketProxy(server);
      const site = await pageServer();
      const chrome = await browser.launch();
      try {
        const { page } = chrome;
        await page.goto(site.url);
        await page.addScriptTag({ url: `${site.url}pusher.js` });
        const signer = sdk(server);
        await page.exposeFunction('roostAuthorize', (socketId, channel) => signer.authorizeChannel(socketId, channel));
        const name = uniqueName('private-fallback');
        await page.evaluate(({ key, port, channel }) => new Promise((resolve, reject) => {
          window.got = [];
          window.client = new window.Pusher(key, {
            cluster: 'mt1', wsHost: '127.0.0.1', wsPort: port, httpHost: '127.0.0.1', httpPort: port, forceTLS: false,
            channelAuthorization: {
              customHandler: (p, cb) => window.roostAuthorize(p.socketId, p.channelName).then((a) => cb(null, a), (e) => cb(e, null)),
            },
          });
          const ch = window.client.subscribe(channel);
          ch.bind_global((event, data) => { if (!event.startsWith('pusher')) window.got.push({ event, data }); });
          ch.bind('pusher:subscription_succeeded', resolve);
          ch.bind('pusher:subscription_error', (e) => reject(new Error(JSON.stringify(e))));
        }), { key: server.key, port: proxy.port, channel: name });
        const transport = await page.evaluate(() => window.client.connection.connection.transport.name);
        assert.equal(transport, 'xhr_streaming');
        assert.ok(proxy.seen.upgrades > 0, 'pusher-js tried a WebSocket first');
        assert.ok(proxy.seen.paths.some((p) => p.startsWith('OPTIONS /pusher/app/')), `a CORS preflight: ${proxy.seen.paths}`);
        await signer.trigger(name, 'story', { text: 'through the fallback ✓' });
        await page.waitForFunction(() => window.got.some((g) => g.event === 'story'));
        const got = await page.evaluate(() => window.got.find((g) => g.event === 'story').data);
        assert.deepEqual(got, { text: 'through the fallback ✓' });
      } finally {
        await chrome.close();
        proxy.close();
        site.close();
      }
    });
});
});
