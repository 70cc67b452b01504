'use strict';
// Publishing across a three-node cluster over Redis (docs/protocol.md
// "The HTTP API", "Channels"): subscribers on node 1, other subscribers on node
// 2, the `pusher` SDK publishing through node 3. Every event reaches every
// subscriber exactly once and in order, socket_id exclusion holds for a
// connection on another node, and the REST queries (channel lists,
// subscription counts, trigger info) and cache channels are cluster-wide.

const assert = require('node:assert/strict');
const { isDeepStrictEqual } = require('node:util');
const { describeCluster } = require('../lib/cluster');
const { uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { authedClient, waitEvents, marker } = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const UNICODE = 'héllo wörld — 日本語 ✓ 🚀 "quoted" \\ back\\slash \n newline';
const OBJECT = { text: UNICODE, n: 42, list: [1, 'two', { three: 3 }] };
const IN_ORDER = 50;

// subscribeAt subscribes a fresh pusher-js client on node i to name.
async function subscribeAt(ctx, i, name) {
  return subscribe(await ctx.clients[i].pusherJS(), name);
}

// exactlyOnce checks after a marker that every channel got event once, with data.
async function exactlyOnce(api, name, channels, event, data) {
  await marker(api, name, channels);
  for (const ch of channels) assert.deepEqual(received(ch, event), [data], `${event} on ${ch.name}`);
}

// getJSON runs an SDK GET against a node and returns the parsed body.
async function getJSON(api, path, params) {
  const res = await api.get({ path, params });
  assert.equal(res.status, 200, path);
  return res.json();
}

// waitCount polls every node until channel name has n subscriptions there.
function waitCount(ctx, name, n) {
  return Promise.all(ctx.nodes.map((node, i) => {
    let last;
    return waitFor(async () => {
      last = await getJSON(sdk(node), `/channels/${name}`, { info: 'subscription_count' });
      return last.subscription_count === n;
    }, { what: `subscription_count ${n} for ${name} from node ${i + 1}; last ${JSON.stringify(last)}` });
  }));
}

// waitChannels polls every node until GET /channels under prefix equals want.
function waitChannels(ctx, prefix, want, params = {}) {
  return Promise.all(ctx.nodes.map((node, i) => {
    let last;
    return waitFor(async () => {
      last = await getJSON(sdk(node), '/channels', { filter_by_prefix: prefix, ...params });
      return isDeepStrictEqual(last, want);
    }, { what: `GET /channels?filter_by_prefix=${prefix} = ${JSON.stringify(want)} from node ${i + 1}; ` +
      `last ${JSON.stringify(last)}` });
  }));
}

describeCluster('cluster: publish across nodes', { apps: APPS }, (test) => {
  test('trigger to one channel reaches subscribers on every node exactly once', async (ctx) => {
    const name = uniqueName('news');
    const subs = [
      await subscribeAt(ctx, 0, name), await subscribeAt(ctx, 0, name),
      await subscribeAt(ctx, 1, name), await subscribeAt(ctx, 2, name),
    ];
    const api = sdk(ctx.nodes[2]);
    const res = await api.trigger(name, 'greeting', UNICODE);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {});
    await exactlyOnce(api, name, subs, 'greeting', UNICODE);
  });

  test('trigger to three channels reaches each channel\'s subscribers on other nodes', async (ctx) => {
    const names = [uniqueName('a'), uniqueName('b'), uniqueName('c')];
    const subs = [
      await subscribeAt(ctx, 0, names[0]), await subscribeAt(ctx, 1, names[1]),
      await subscribeAt(ctx, 0, names[2]), await subscribeAt(ctx, 1, names[2]),
    ];
    const api = sdk(ctx.nodes[2]);
    assert.equal((await api.trigger(names, 'update', OBJECT)).status, 200);
    for (const ch of subs) assert.deepEqual(await waitEvents(ch, 'update'), [OBJECT]);
    for (const n of names) await marker(api, n, subs.filter((ch) => ch.name === n));
    for (const ch of subs) assert.equal(received(ch, 'update').length, 1, `one update on ${ch.name}`);
  });

  test('triggerBatch delivers each event to its channel on its node, in order', async (ctx) => {
    const [n1, n2] = [uniqueName('batch'), uniqueName('batch')];
    const c1 = await subscribeAt(ctx, 0, n1);
    const c2 = await subscribeAt(ctx, 1, n2);
    const res = await sdk(ctx.nodes[2]).triggerBatch([
      { channel: n1, name: 'first', data: { i: 1, s: UNICODE } },
      { channel: n2, name: 'second', data: 'plain ✓' },
      { channel: n1, name: 'third', data: { i: 3 } },
    ]);
    assert.equal(res.status, 200);
    await waitEvents(c1, 'third');
    assert.deepEqual(c1.received.filter((r) => !r.event.startsWith('pusher:')),
      [{ event: 'first', data: { i: 1, s: UNICODE } }, { event: 'third', data: { i: 3 } }]);
    assert.deepEqual(await waitEvents(c2, 'second'), ['plain ✓']);
    assert.deepEqual(received(c2, 'first'), []);
  });

  test('socket_id excludes a subscriber on another node, and only that one', async (ctx) => {
    const name = uniqueName('excl');
    const a = await subscribeAt(ctx, 0, name);
    const b = await subscribeAt(ctx, 1, name);
    const api = sdk(ctx.nodes[2]);
    const bSocket = b.pusher.connection.socket_id;
    const aSocket = a.pusher.connection.socket_id;
    assert.equal((await api.trigger(name, 'not-for-b', { n: 1 }, { socket_id: bSocket })).status, 200);
    assert.equal((await api.trigger(name, 'not-for-a', { n: 2 }, { socket_id: aSocket })).status, 200);
    await waitEvents(a, 'not-for-b');
    await waitEvents(b, 'not-for-a');
    await marker(api, name, [a, b]);
    assert.deepEqual(received(b, 'not-for-b'), [], `node 2's ${bSocket} was excluded`);
    assert.deepEqual(received(a, 'not-for-a'), [], `node 1's ${aSocket} was excluded`);
    const res = await api.triggerBatch([{ channel: name, name: 'batch-not-for-b', data: '{}', socket_id: bSocket }]);
    assert.equal(res.status, 200);
    await waitEvents(a, 'batch-not-for-b');
    await marker(api, name, [a, b]);
    assert.deepEqual(received(b, 'batch-not-for-b'), [], 'socket_id in a batch event excludes across nodes');
  });

  test(`${IN_ORDER} sequential triggers arrive complete and in order on every node`, async (ctx) => {
    const name = uniqueName('seq');
    const subs = [await subscribeAt(ctx, 0, name), await subscribeAt(ctx, 1, name), await subscribeAt(ctx, 2, name)];
    const api = sdk(ctx.nodes[2]);
    for (let i = 0; i < IN_ORDER; i++) assert.equal((await api.trigger(name, 'seq', { i })).status, 200);
    for (const ch of subs) {
      await waitFor(() => received(ch, 'seq').length >= IN_ORDER, {
        what: `${IN_ORDER} seq events; got ${received(ch, 'seq').length}`,
      });
      assert.deepEqual(received(ch, 'seq').map((d) => d.i), Array.from({ length: IN_ORDER }, (_, i) => i));
    }
  });

  test('a private channel with subscribers on two nodes gets the event on both', async (ctx) => {
    const name = uniqueName('private-orders');
    const a = await subscribe(await authedClient(ctx.at(0), { user_id: 'a' }), name);
    const b = await subscribe(await authedClient(ctx.at(1), { user_id: 'b' }), name);
    const api = sdk(ctx.nodes[2]);
    assert.equal((await api.trigger(name, 'shipped', OBJECT)).status, 200);
    await exactlyOnce(api, name, [a, b], 'shipped', OBJECT);
  });

  test('REST channel lists and subscription counts are cluster-wide on every node', async (ctx) => {
    const prefix = uniqueName('count');
    const [p, q] = [`${prefix}-p`, `${prefix}-q`];
    const ps = [await subscribeAt(ctx, 0, p), await subscribeAt(ctx, 0, p), await subscribeAt(ctx, 1, p)];
    const qs = [await subscribeAt(ctx, 1, q)];
    await waitCount(ctx, p, 3);
    await waitCount(ctx, q, 1);
    await waitChannels(ctx, prefix, { channels: { [p]: {}, [q]: {} } });
    const res = await sdk(ctx.nodes[2]).trigger(p, 'counted', {}, { info: 'subscription_count' });
    assert.deepEqual(await res.json(), { channels: { [p]: { subscription_count: 3 } } });

    ps[2].pusher.unsubscribe(p);
    qs[0].pusher.unsubscribe(q);
    await waitCount(ctx, p, 2);
    await waitChannels(ctx, prefix, { channels: { [p]: {} } });
    const occupied = await getJSON(sdk(ctx.nodes[2]), `/channels/${q}`, { info: 'subscription_count' });
    assert.deepEqual(occupied, { occupied: false, subscription_count: 0 });
  });

  test('presence user_count in GET /channels is cluster-wide on every node', async (ctx) => {
    const name = uniqueName('presence-count');
    await subscribe(await authedClient(ctx.at(0), { user_id: 'u1' }), name);
    await subscribe(await authedClient(ctx.at(1), { user_id: 'u2' }), name);
    await subscribe(await authedClient(ctx.at(1), { user_id: 'u1' }), name);
    await waitChannels(ctx, name, { channels: { [name]: { user_count: 2 } } }, { info: 'user_count' });
    for (const node of ctx.nodes) {
      assert.deepEqual(await getJSON(sdk(node), `/channels/${name}`, { info: 'user_count' }),
        { occupied: true, user_count: 2 });
    }
  });

  test('a cache channel: the event published through node 3 is the hit on nodes 1 and 2', async (ctx) => {
    const name = uniqueName('cache-ticker');
    const api = sdk(ctx.nodes[2]);
    const first = await subscribeAt(ctx, 0, name);
    await waitEvents(first, 'pusher:cache_miss');
    assert.equal((await api.trigger(name, 'price', { usd: 101.5 })).status, 200);
    await waitEvents(first, 'price');

    const second = await subscribeAt(ctx, 1, name);
    assert.deepEqual(await waitEvents(second, 'price'), [{ usd: 101.5 }]);
    assert.deepEqual(second.received.map((r) => r.event), ['pusher:subscription_succeeded', 'price'],
      'the cached event comes right after subscription_succeeded');
    const third = await subscribeAt(ctx, 2, name);
    assert.deepEqual(await waitEvents(third, 'price'), [{ usd: 101.5 }]);
    await marker(api, name, [first, second, third]);
    assert.equal(received(first, 'price').length, 1, 'an old subscriber does not get the cached event again');
    assert.deepEqual(received(second, 'pusher:cache_miss'), []);
  });

  test('a cache channel nobody subscribes to: published on node 3, hit on node 1', async (ctx) => {
    const name = uniqueName('cache-empty-room');
    const api = sdk(ctx.nodes[2]);
    assert.equal((await api.trigger(name, 'first', { n: 1 })).status, 200);
    assert.equal((await api.trigger(name, 'second', { n: 2 })).status, 200);
    const ch = await subscribeAt(ctx, 0, name);
    assert.deepEqual(await waitEvents(ch, 'second'), [{ n: 2 }]);
    assert.deepEqual(ch.received.map((r) => r.event), ['pusher:subscription_succeeded', 'second']);
  });
});
