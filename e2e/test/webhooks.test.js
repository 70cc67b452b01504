'use strict';
// Webhooks (docs/webhooks.md, Pusher docs "Webhooks"): roost POSTs signed
// batches of channel_occupied, channel_vacated, member_added, member_removed,
// client_event, cache_miss and subscription_count to each app's URLs. The
// receiver here checks every request with the `pusher` SDK's
// webhook(...).isValid(), as a Node backend does. Vacated and removed wait
// 3 s and are cancelled by a comeback; batches keep order; failed requests
// are retried; a URL that never answers costs a bounded queue and its events
// are dropped, and counted, after the retry window (shortened here).

const assert = require('node:assert/strict');
const { describe, it, before, after, beforeEach, afterEach } = require('node:test');
const { startRoost, TRANSPORTS } = require('../lib/roost');
const { Clients, subscribe } = require('../lib/clients');
const { withStderr, uniqueName } = require('../lib/suite');
const { startAuthEndpoint } = require('../lib/backend');
const { authedClient } = require('../lib/features');
const { waitFor } = require('../lib/poll');
const { startReceiver, on, waitHooks, metric } = require('../lib/webhooks');

const APP = { id: '1', key: 'key-1', secret: 'secret-1', client_events: true, subscription_count: true };
const DEAF = { id: 'deaf', key: 'key-deaf', secret: 'secret-deaf' }; // its URL never answers
const QUEUE_BYTES = 16 * 1024;
const DEAF_CHANNELS = 1500; // one connection's subscriptions that overflow the deaf app's queue
const ENV = {
  ROOST_WEBHOOK_TIMEOUT: '1s', ROOST_WEBHOOK_RETRY_FOR: '3s', ROOST_WEBHOOK_QUEUE_BYTES: String(QUEUE_BYTES),
  ROOST_MAX_SUBSCRIPTIONS_PER_CONNECTION: String(DEAF_CHANNELS),
};
const DELAYED = 10000; // a wait that covers the 3 s delay and a batch

function member(id) {
  return { user_id: id, user_info: JSON.stringify({ name: id }) };
}

async function closeClient(client) {
  client.disconnect();
  await waitFor(() => client.connection.state === 'disconnected', { what: 'pusher-js disconnected' });
}

// describeWebhooks runs body against a roost per transport whose apps post to
// a receiver started first. App 1 sends subscription_count to /counts and
// every other event to /hooks; app "deaf" posts to /deaf, which never answers.
function describeWebhooks(title, body) {
  for (const transport of TRANSPORTS) {
    describe(`${title} [${transport}]`, () => {
      const ctx = { transport };
      before(async () => {
        ctx.hooks = await startReceiver([APP, DEAF]);
        ctx.hooks.answer = (events, req) => (req.url === '/deaf' ? null : 200);
        const all = ['channel_occupied', 'channel_vacated', 'member_added', 'member_removed', 'client_event', 'cache_miss'];
        const apps = [{ ...APP, webhooks: [{ url: ctx.hooks.url(), event_types: all },
          { url: ctx.hooks.url('/counts'), event_types: ['subscription_count'] }] },
          { ...DEAF, webhooks: [{ url: ctx.hooks.url('/deaf'), event_types: ['channel_occupied'] }] }];
        ctx.server = await startRoost({ apps, transport, env: ENV });
        ctx.auth = await startAuthEndpoint(ctx.server);
      });
      beforeEach(() => { ctx.clients = new Clients(ctx.server); });
      afterEach(async () => {
        await ctx.clients.closeAll();
        assert.deepEqual(ctx.hooks.invalid, [], 'every webhook request must pass pusher.webhook(req).isValid()');
      });
      after(async () => {
        if (ctx.auth) await ctx.auth.close();
        if (ctx.server) await ctx.server.stop();
        if (ctx.hooks) await ctx.hooks.close();
      });
      body((name, fn) => it(name, withStderr(ctx, fn)), ctx);
    });
  }
}

describeWebhooks('webhooks', (test) => {
  test('every event type arrives signed, with Pusher\'s fields', async (ctx) => {
    const presence = uniqueName('presence-hooks');
    const cache = uniqueName('cache-hooks');
    const plain = uniqueName('count-hooks');
    const alice = await authedClient(ctx, member('alice'));
    const room = await subscribe(alice, presence);
    await subscribe(alice, cache);
    await subscribe(alice, plain);
    room.trigger('client-hello', { hi: 1 });
    await waitHooks(ctx.hooks, presence, ['channel_occupied', 'member_added alice', 'client_event alice']);
    await waitHooks(ctx.hooks, cache, ['channel_occupied', 'cache_miss']);
    await waitHooks(ctx.hooks, plain, ['channel_occupied']);
    await waitHooks(ctx.hooks, plain, ['subscription_count'], undefined, '/counts');
    const find = (channel, name) => ctx.hooks.events.find((e) => e.channel === channel && e.name === name);
    const client = find(presence, 'client_event');
    assert.deepEqual({ ...client, time_ms: 0 }, {
      name: 'client_event', channel: presence, event: 'client-hello', data: '{"hi":1}',
      socket_id: alice.connection.socket_id, user_id: 'alice', app: APP.key, path: '/hooks', time_ms: 0,
    });
    assert.equal(find(plain, 'subscription_count').subscription_count, 1);
    assert.ok(Math.abs(client.time_ms - Date.now()) < 60000, 'time_ms is the time of sending, in ms');

    await closeClient(alice);
    await waitHooks(ctx.hooks, presence, ['member_removed alice', 'channel_vacated'], DELAYED);
    await waitHooks(ctx.hooks, cache, ['channel_vacated'], DELAYED);
    assert.deepEqual(on(ctx.hooks, presence),
      ['channel_occupied', 'member_added alice', 'client_event alice', 'member_removed alice', 'channel_vacated']);
  });

  test('a reconnect within 3 s sends no channel_vacated / channel_occupied pair', async (ctx) => {
    const name = uniqueName('reload');
    const witness = uniqueName('witness'); // vacated at the same moment, and sent
    const first = await ctx.clients.pusherJS();
    await subscribe(first, name);
    await subscribe(first, witness);
    await waitHooks(ctx.hooks, name, ['channel_occupied']);
    await waitHooks(ctx.hooks, witness, ['channel_occupied']);
    await closeClient(first);
    const again = await ctx.clients.pusherJS(); // the page reloaded
    await subscribe(again, name);
    await waitHooks(ctx.hooks, witness, ['channel_vacated'], DELAYED);
    assert.deepEqual(on(ctx.hooks, name), ['channel_occupied'], 'the reload must send nothing');
  });

  test('two tabs of one user give one member_added and one member_removed', async (ctx) => {
    const name = uniqueName('presence-tabs');
    const tab1 = await authedClient(ctx, member('bob'));
    await subscribe(tab1, name);
    const tab2 = await authedClient(ctx, member('bob'));
    await subscribe(tab2, name);
    await closeClient(tab1);
    await closeClient(tab2);
    await waitHooks(ctx.hooks, name, ['channel_vacated'], DELAYED);
    assert.deepEqual(on(ctx.hooks, name), ['channel_occupied', 'member_added bob', 'member_removed bob', 'channel_vacated']);
  });

  test('batches keep the order of each channel\'s events', async (ctx) => {
    const raw = await ctx.clients.raw();
    const names = Array.from({ length: 60 }, () => uniqueName('order'));
    const before = ctx.hooks.requests;
    for (const name of names) raw.send({ event: 'pusher:subscribe', data: { channel: name } });
    for (const name of names) raw.send({ event: 'pusher:unsubscribe', data: { channel: name } });
    for (const name of names) await waitHooks(ctx.hooks, name, ['channel_vacated'], DELAYED);
    for (const name of names) assert.deepEqual(on(ctx.hooks, name), ['channel_occupied', 'channel_vacated'], name);
    assert.ok(ctx.hooks.requests - before <= 8, `120 events in ${ctx.hooks.requests - before} requests: batched`);
  });

  test('a receiver refusing every request that names one channel holds back no other', async (ctx) => {
    const bad = uniqueName('refused');
    const shared = [uniqueName('shared'), uniqueName('shared')]; // in the refused channel's first request
    const later = [uniqueName('later'), uniqueName('later')]; // queued while it is retried
    const tried = new Map(); // channel: requests that carried it
    ctx.hooks.answer = (events, req) => {
      if (req.url === '/deaf') return null;
      if (req.url !== '/hooks') return 200;
      for (const c of new Set(events.map((e) => e.channel))) tried.set(c, (tried.get(c) || 0) + 1);
      return events.some((e) => e.channel === bad) ? 500 : 200;
    };
    const expired = await metric(ctx.server, 'roost_webhook_dropped_total{app="1",reason="retry_expired"}');
    const raw = await ctx.clients.raw();
    for (const name of [bad, ...shared]) raw.send({ event: 'pusher:subscribe', data: { channel: name } });
    for (const name of shared) await waitHooks(ctx.hooks, name, ['channel_occupied']);
    for (const name of later) raw.send({ event: 'pusher:subscribe', data: { channel: name } });
    for (const name of later) await waitHooks(ctx.hooks, name, ['channel_occupied']);
    assert.ok(tried.get(bad) >= 2, `the refused channel was tried ${tried.get(bad)} times by now: retried`);
    for (const name of shared) assert.equal(tried.get(name), 2, `${name}: one refused request, then delivered`);
    for (const name of later) assert.equal(tried.get(name), 1, `${name}: not held back by the refused channel`);
    await waitFor(async () => await metric(ctx.server, 'roost_webhook_dropped_total{app="1",reason="retry_expired"}') > expired,
      { what: 'the refused request dropped after the 3 s retry window', timeout: 20000 });
    assert.deepEqual(on(ctx.hooks, bad), [], 'a refused event is never recorded as delivered');
    for (const name of [...shared, ...later]) assert.deepEqual(on(ctx.hooks, name), ['channel_occupied'], name);
  });

  test('a receiver that answers 500 twice, then 200, gets the event once', async (ctx) => {
    const name = uniqueName('flaky');
    let failures = 0;
    ctx.hooks.answer = (events, req) => {
      if (req.url === '/deaf') return null;
      const mine = req.url === '/hooks' && events.some((e) => e.channel === name);
      if (mine && failures < 2) { failures += 1; return 500; }
      return 200;
    };
    const failedBefore = await metric(ctx.server, 'roost_webhook_failed_attempts_total{app="1"}');
    const c = await ctx.clients.pusherJS();
    await subscribe(c, name);
    await waitHooks(ctx.hooks, name, ['channel_occupied']);
    assert.equal(failures, 2);
    assert.deepEqual(on(ctx.hooks, name), ['channel_occupied'], 'delivered exactly once');
    assert.ok(await metric(ctx.server, 'roost_webhook_failed_attempts_total{app="1"}') >= failedBefore + 2);
    assert.ok(await metric(ctx.server, 'roost_webhook_retried_total{app="1"}') >= 2);
  });

  test('a receiver that never answers costs a bounded queue, then its events are dropped and counted',
    async (ctx) => {
      const raw = await ctx.clients.raw({ key: DEAF.key });
      for (let i = 0; i < DEAF_CHANNELS; i++) raw.send({ event: 'pusher:subscribe', data: { channel: uniqueName('deaf') } });
      const series = (name) => metric(ctx.server, name);
      await waitFor(async () => await series('roost_webhook_dropped_total{app="deaf",reason="queue_full"}') > 0,
        { what: 'events dropped because the queue is full' });
      const depth = await series('roost_webhook_queue_depth{app="deaf"}');
      const eventBytes = JSON.stringify({ name: 'channel_occupied', channel: uniqueName('deaf') }).length;
      assert.ok(depth * eventBytes <= QUEUE_BYTES, `${depth} queued events of ~${eventBytes} bytes exceed ${QUEUE_BYTES}`);
      await waitFor(async () => await series('roost_webhook_dropped_total{app="deaf",reason="retry_expired"}') > 0,
        { what: 'a batch dropped after the 3 s retry window', timeout: 20000 });
      assert.equal(await series('roost_webhook_sent_total{app="deaf"}'), 0);
      assert.ok(ctx.hooks.hung > 0, 'the receiver saw the requests it never answered');
    });
});
