'use strict';
// webhooks.js plays the app backend's webhook endpoint (Pusher docs,
// "Webhooks"): an HTTP server in the test process that checks every request
// with the official `pusher` SDK (pusher.webhook({headers, rawBody}).isValid(),
// as a Node backend does) and records the events of the valid ones. Tests
// choose how it answers, per request, to exercise retries and timeouts, and
// read roost's /metrics to see what roost counted.

const http = require('node:http');
const PusherSDK = require('pusher');
const { waitFor } = require('./poll');

/**
 * startReceiver listens on 127.0.0.1:0. apps: [{ id, key, secret }], the
 * apps whose signatures it accepts. receiver.answer(events, req) returns
 * the status to answer, or null to never answer (default 200). With
 * { dedupe: true } it keeps an event whose id (X-Roost-Webhook-Events) it
 * has already kept no more, as docs/webhooks.md tells backends to: a node
 * killed just after a request was answered has it sent again by the node
 * that takes over its outbox, with the same ids.
 */
function startReceiver(apps, { dedupe = false } = {}) {
  const sdks = new Map(apps.map((a) => [a.key, new PusherSDK({ appId: a.id, key: a.key, secret: a.secret })]));
  const r = { events: [], requests: 0, invalid: [], hung: 0, answer: () => 200, dedupe, seen: new Set(), dropped: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(r, sdks, req, res, Buffer.concat(chunks).toString('utf8')));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    r.url = (path = '/hooks') => `http://127.0.0.1:${port}${path}`;
    r.close = () => new Promise((done) => { server.closeAllConnections(); server.close(done); });
    resolve(r);
  }));
}

// handle checks one request with the SDK, asks the test how to answer, and
// records the events of a request it answers 2xx.
function handle(r, sdks, req, res, rawBody) {
  r.requests += 1;
  const sdk = sdks.get(req.headers['x-pusher-key']);
  const hook = sdk && sdk.webhook({ headers: req.headers, rawBody });
  if (!hook || !hook.isValid() || req.method !== 'POST') {
    r.invalid.push({ method: req.method, headers: req.headers, rawBody });
    res.writeHead(401).end();
    return;
  }
  const events = hook.getEvents().map((e) => ({ ...e, app: req.headers['x-pusher-key'], path: req.url }));
  const status = r.answer(events, req);
  if (status === null) { r.hung += 1; return; }
  if (status >= 200 && status < 300) {
    const time = hook.getTime().getTime();
    const ids = (req.headers['x-roost-webhook-events'] || '').split(',');
    events.forEach((e, i) => {
      if (r.dedupe && r.seen.has(ids[i])) { r.dropped += 1; return; }
      r.seen.add(ids[i]);
      r.events.push({ ...e, time_ms: time });
    });
  }
  res.writeHead(status, { 'Content-Type': 'text/plain' }).end(String(status));
}

/**
 * on lists the events of channel received on path (default /hooks), as
 * "name" or "name user_id".
 */
function on(r, channel, path = '/hooks') {
  return r.events.filter((e) => e.channel === channel && e.path === path)
    .map((e) => (e.user_id ? `${e.name} ${e.user_id}` : e.name));
}

/** waitHooks waits until channel's events on path include every one of want. */
function waitHooks(r, channel, want, timeout, path) {
  return waitFor(() => want.every((w) => on(r, channel, path).includes(w)), {
    timeout, what: `webhooks ${JSON.stringify(want)} on ${channel}; got ${JSON.stringify(on(r, channel, path))}`,
  });
}

/** metric reads one sample of roost's /metrics, e.g. 'roost_webhook_sent_total{app="1"}'; 0 if absent. */
async function metric(server, series) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

module.exports = { startReceiver, on, waitHooks, metric };
