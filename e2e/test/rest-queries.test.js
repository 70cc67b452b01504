'use strict';
// REST queries through the `pusher` SDK's get() (docs/protocol.md "The HTTP
// API", Pusher "HTTP API reference"): GET /channels with filter_by_prefix and
// info=user_count (presence prefixes only), GET /channels/{name} with
// info=user_count,subscription_count,cache (an attribute that does not fit the
// channel type is a 400), GET /channels/{name}/users (presence only), and the
// info parameter on events and batch_events. Counts are checked against a known
// population: on presence, 2 users over 3 connections.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, sdk, statusOf } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { useAuthEndpoint, authedClient, waitEvents } = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', subscription_count: true }];

// get calls the SDK's get and returns the parsed body, failing on non-200.
async function get(server, path, params) {
  const res = await sdk(server).get({ path, params });
  assert.equal(res.status, 200, `GET ${path} ${JSON.stringify(params || {})}`);
  return res.json();
}

// getStatus returns the HTTP status of an SDK get.
function getStatus(server, path, params) {
  return statusOf(sdk(server).get({ path, params }));
}

// populate puts alice (2 tabs) and bob on presence channel name: 2 users,
// 3 connections.
async function populate(ctx, name) {
  const out = [];
  for (const id of ['alice', 'alice', 'bob']) out.push(await subscribe(await authedClient(ctx, { user_id: id }), name));
  return out;
}

// publicPopulation subscribes n pusher-js clients to a public channel.
async function publicPopulation(ctx, name, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await subscribe(await ctx.clients.pusherJS(), name));
  return out;
}

describeServer('rest queries', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('GET /channels lists occupied channels under filter_by_prefix', async ({ server }) => {
    const prefix = uniqueName('list');
    const [a, b] = [`${prefix}-a`, `${prefix}-b`];
    await publicPopulation(ctx, a, 2);
    const [gone] = await publicPopulation(ctx, b, 1);
    assert.deepEqual(await get(server, '/channels', { filter_by_prefix: prefix }),
      { channels: { [a]: {}, [b]: {} } });
    gone.pusher.unsubscribe(b);
    await waitFor(async () => !(b in (await get(server, '/channels', { filter_by_prefix: prefix })).channels), {
      what: `${b} to leave the list once vacated`,
    });
    assert.deepEqual(await get(server, '/channels', { filter_by_prefix: prefix }), { channels: { [a]: {} } });
    const all = await get(server, '/channels');
    assert.ok(a in all.channels, 'no filter lists every occupied channel');
  });

  test('GET /channels with info=user_count on a presence- prefix', async ({ server }) => {
    const prefix = uniqueName('presence-list');
    const [one, two] = [`${prefix}-one`, `${prefix}-two`];
    await populate(ctx, one);
    await subscribe(await authedClient(ctx, { user_id: 'carol' }), two);
    const body = await get(server, '/channels', { filter_by_prefix: prefix, info: 'user_count' });
    assert.deepEqual(body, { channels: { [one]: { user_count: 2 }, [two]: { user_count: 1 } } });
  });

  test('GET /channels: user_count without a presence- prefix -> 400', async ({ server }) => {
    assert.equal(await getStatus(server, '/channels', { info: 'user_count' }), 400);
    assert.equal(await getStatus(server, '/channels', { filter_by_prefix: 'private-', info: 'user_count' }), 400);
  });

  test('GET /channels/{presence} with info=subscription_count,user_count', async ({ server }) => {
    const name = uniqueName('presence-info');
    await populate(ctx, name);
    const body = await get(server, `/channels/${name}`, { info: 'subscription_count,user_count' });
    assert.deepEqual(body, { occupied: true, user_count: 2, subscription_count: 3 });
  });

  test('GET /channels/{public} with info=subscription_count; user_count there -> 400', async ({ server }) => {
    const name = uniqueName('public-info');
    await publicPopulation(ctx, name, 2);
    assert.deepEqual(await get(server, `/channels/${name}`, { info: 'subscription_count' }),
      { occupied: true, subscription_count: 2 });
    assert.deepEqual(await get(server, `/channels/${name}`), { occupied: true });
    assert.equal(await getStatus(server, `/channels/${name}`, { info: 'user_count' }), 400);
  });

  test('GET /channels/{name} of an unoccupied channel', async ({ server }) => {
    assert.deepEqual(await get(server, `/channels/${uniqueName('nobody')}`), { occupied: false });
    const body = await get(server, `/channels/${uniqueName('presence-nobody')}`, { info: 'user_count' });
    assert.equal(body.occupied, false);
    assert.equal(body.user_count || 0, 0);
  });

  test('GET /channels/{cache} with info=cache; cache off a cache channel -> 400', async ({ server }) => {
    const name = uniqueName('cache-info');
    const ch = (await publicPopulation(ctx, name, 1))[0];
    await sdk(server).trigger(name, 'snapshot', { v: 1 });
    await waitEvents(ch, 'snapshot');
    const body = await get(server, `/channels/${name}`, { info: 'cache' });
    assert.equal(body.occupied, true);
    assert.ok(body.cache, `cache attribute missing: ${JSON.stringify(body)}`);
    assert.deepEqual(JSON.parse(body.cache.data), { v: 1 });
    assert.ok(body.cache.ttl > 0 && body.cache.ttl <= 1800, `ttl ${body.cache.ttl}`);
    assert.equal(await getStatus(server, `/channels/${uniqueName('not-cache')}`, { info: 'cache' }), 400);
  });

  test('GET /channels/{presence}/users lists each user once', async ({ server }) => {
    const name = uniqueName('presence-users');
    const [tab1] = await populate(ctx, name);
    const body = await get(server, `/channels/${name}/users`);
    assert.deepEqual(body.users.map((u) => u.id).sort(), ['alice', 'bob']);
    assert.deepEqual(Object.keys(body), ['users']);
    tab1.pusher.disconnect();
    await waitFor(async () => (await get(server, `/channels/${name}`, { info: 'subscription_count' }))
      .subscription_count === 2, { what: 'one of alice\'s tabs gone' });
    const after = await get(server, `/channels/${name}/users`);
    assert.deepEqual(after.users.map((u) => u.id).sort(), ['alice', 'bob'], 'alice still has a tab');
  });

  test('GET /channels/{non-presence}/users -> 400', async ({ server }) => {
    assert.equal(await getStatus(server, `/channels/${uniqueName('public-users')}/users`), 400);
    assert.equal(await getStatus(server, `/channels/${uniqueName('private-users')}/users`), 400);
  });

  test('trigger with info returns the channel attributes', async ({ server }) => {
    const name = uniqueName('presence-trigger');
    await populate(ctx, name);
    const res = await sdk(server).trigger(name, 'hello', {}, { info: 'user_count,subscription_count' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { channels: { [name]: { user_count: 2, subscription_count: 3 } } });
  });

  test('triggerBatch with info returns one attribute set per event', async ({ server }) => {
    const pres = uniqueName('presence-batch');
    const pub = uniqueName('public-batch');
    await populate(ctx, pres);
    await publicPopulation(ctx, pub, 2);
    const res = await sdk(server).triggerBatch([
      { channel: pres, name: 'e1', data: {}, info: 'user_count' },
      { channel: pub, name: 'e2', data: {}, info: 'subscription_count' },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { batch: [{ user_count: 2 }, { subscription_count: 2 }] });
  });
});
