'use strict';
// Publishing with the official `pusher` SDK and receiving with pusher-js
// (docs/protocol.md "The HTTP API"): one channel, several channels, batches,
// socket_id exclusion, and the API's refusals (401, 413, 400).

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk, statusOf } = require('../lib/clients');
const { apiRequest } = require('../lib/sign');
const { waitFor } = require('../lib/poll');

const UNICODE = 'héllo wörld — 日本語 ✓ 🚀 \u0000 "quoted" \\ back\\slash \n newline';
const OBJECT = { text: UNICODE, n: 42, f: 1.5, ok: true, none: null, list: [1, 'two', { three: 3 }] };

async function subscribed(clients, n, name) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await subscribe(await clients.pusherJS(), name));
  return out;
}

function eventually(channel, event, what) {
  return waitFor(() => received(channel, event).length > 0, {
    what: `${what || event} on ${channel.name}; got ${JSON.stringify(channel.received)}`,
  }).then(() => received(channel, event));
}

describeServer('publish', {}, (test) => {
  test('trigger to one channel delivers string data intact', async ({ server, clients }) => {
    const name = uniqueName('news');
    const [ch] = await subscribed(clients, 1, name);
    const res = await sdk(server).trigger(name, 'greeting', UNICODE);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {});
    assert.deepEqual(await eventually(ch, 'greeting'), [UNICODE]);
  });

  test('trigger to three channels reaches every subscriber with object data', async ({ server, clients }) => {
    const names = [uniqueName('a'), uniqueName('b'), uniqueName('c')];
    const chans = [];
    for (const n of names) chans.push(...await subscribed(clients, 1, n));
    const res = await sdk(server).trigger(names, 'update', OBJECT);
    assert.equal(res.status, 200);
    for (const ch of chans) assert.deepEqual(await eventually(ch, 'update'), [OBJECT]);
  });

  test('triggerBatch delivers each event to its channel', async ({ server, clients }) => {
    const [n1, n2] = [uniqueName('batch'), uniqueName('batch')];
    const [c1] = await subscribed(clients, 1, n1);
    const [c2] = await subscribed(clients, 1, n2);
    const res = await sdk(server).triggerBatch([
      { channel: n1, name: 'first', data: { i: 1, s: UNICODE } },
      { channel: n2, name: 'second', data: 'plain ✓' },
      { channel: n1, name: 'third', data: { i: 3 } },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(await eventually(c1, 'first'), [{ i: 1, s: UNICODE }]);
    assert.deepEqual(await eventually(c1, 'third'), [{ i: 3 }]);
    assert.deepEqual(await eventually(c2, 'second'), ['plain ✓']);
    assert.deepEqual(received(c2, 'first'), []);
  });

  test('socket_id excludes exactly that connection', async ({ server, clients }) => {
    const name = uniqueName('excl');
    const [excluded, other] = await subscribed(clients, 2, name);
    const excludedId = excluded.pusher.connection.socket_id;
    assert.notEqual(excludedId, other.pusher.connection.socket_id);
    const api = sdk(server);
    assert.equal((await api.trigger(name, 'one', { n: 1 }, { socket_id: excludedId })).status, 200);
    await eventually(other, 'one');
    assert.equal((await api.trigger(name, 'two', { n: 2 })).status, 200);
    await eventually(excluded, 'two', 'the second, unexcluded event');
    await eventually(other, 'two');
    const events = (ch) => ch.received.filter((r) => !r.event.startsWith('pusher')).map((r) => r.event);
    assert.deepEqual(events(excluded), ['two'], 'the excluded connection must see only the second event');
    assert.deepEqual(events(other), ['one', 'two']);
  });

  test('wrong secret -> 401', async ({ server }) => {
    const status = await statusOf(sdk(server, { secret: 'not-the-secret' }).trigger('c', 'e', 'x'));
    assert.equal(status, 401);
  });

  test('hand-signed request with a current timestamp -> 200 (control for the next test)', async ({ server }) => {
    const res = await apiRequest(server, { path: '/events', body: { name: 'e', channel: 'c', data: 'x' } });
    assert.equal(res.status, 200, res.body);
  });

  test('request signed with a timestamp 700 s old -> 401', async ({ server }) => {
    const timestamp = Math.floor(Date.now() / 1000) - 700;
    const res = await apiRequest(server, {
      path: '/events', body: { name: 'e', channel: 'c', data: 'x' }, timestamp,
    });
    assert.equal(res.status, 401, res.body);
  });

  test('unknown app id -> 404', async ({ server }) => {
    const res = await apiRequest(server, { appId: '999', path: '/events', body: { name: 'e', channel: 'c', data: 'x' } });
    assert.equal(res.status, 404, res.body);
  });

  test('11 KB of data -> 413', async ({ server }) => {
    const status = await statusOf(sdk(server).trigger('c', 'big', 'x'.repeat(11 * 1024)));
    assert.equal(status, 413);
  });

  test('exactly 10 KB of data is accepted and delivered intact', async ({ server, clients }) => {
    const name = uniqueName('ten-kb');
    const [ch] = await subscribed(clients, 1, name);
    const data = 'ü'.repeat(2560) + 'x'.repeat(10 * 1024 - 2 * 2560); // 10240 bytes of UTF-8
    const res = await sdk(server).trigger(name, 'big', data);
    assert.equal(res.status, 200);
    assert.deepEqual(await eventually(ch, 'big'), [data]);
  });

  test('101 channels -> 400', async ({ server }) => {
    const channels = Array.from({ length: 101 }, (_, i) => `c${i}`);
    // The SDK refuses > 100 channels itself, so post the body directly.
    const status = await statusOf(sdk(server).post({ path: '/events', body: { name: 'e', channels, data: 'x' } }));
    assert.equal(status, 400);
  });

  test('100 channels are accepted', async ({ server, clients }) => {
    const channels = Array.from({ length: 100 }, () => uniqueName('hundred'));
    const [ch] = await subscribed(clients, 1, channels[99]);
    const res = await sdk(server).trigger(channels, 'all', { ok: 1 });
    assert.equal(res.status, 200);
    assert.deepEqual(await eventually(ch, 'all'), [{ ok: 1 }]);
  });
});
