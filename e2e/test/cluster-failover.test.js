'use strict';
// A node dies (docs/cluster.md, "How the cluster keeps one-node semantics"):
// kill -9 gives it no chance to say goodbye, so the survivors must notice its
// heartbeat expire and then remove its presence members with exactly one
// member_removed each, report its signed-in users offline to their watchers,
// and drop its subscriptions from the cluster-wide counts. A user who also has
// a tab on a surviving node stays a member and stays online. How long the
// removal took is logged; REMOVAL_GUARD_MS only ends a hang (the node TTL is
// 15 s), it is no budget.

const assert = require('node:assert/strict');
const { describeCluster } = require('../lib/cluster');
const { uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { authedClient, waitEvents, marker, signIn } = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const REMOVAL_GUARD_MS = 90000;
const VICTIM = 2; // node 3

// member opens a pusher-js client on node i as user id, signs it in and
// subscribes it to the presence channel name.
async function member(ctx, i, name, id) {
  const client = await authedClient(ctx.at(i), { user_id: id, user_info: JSON.stringify({ id }) });
  await signIn(client);
  return subscribe(client, name);
}

// watcher opens a client on node i, signed in with a watchlist of ids, that
// records its watchlist events in client.watch.
async function watcher(ctx, i, ids) {
  const client = await authedClient(ctx.at(i), { user_id: uniqueName('watcher'), watchlist: ids.join(',') });
  client.watch = [];
  for (const name of ['online', 'offline']) {
    client.user.watchlist.bind(name, (e) => client.watch.push(`${name}:${[...e.user_ids].sort().join(',')}`));
  }
  await signIn(client);
  return client;
}

// usersFrom asks node i for the presence channel's member ids, sorted.
async function usersFrom(ctx, i, name) {
  const body = await (await sdk(ctx.nodes[i]).get({ path: `/channels/${name}/users` })).json();
  return body.users.map((u) => u.id).sort();
}

// countFrom asks node i for the subscription count of name.
async function countFrom(ctx, i, name) {
  const res = await sdk(ctx.nodes[i]).get({ path: `/channels/${name}`, params: { info: 'subscription_count' } });
  return (await res.json()).subscription_count;
}

describeCluster('cluster: kill -9 of a node', { apps: APPS }, (test) => {
  test('survivors announce its members removed once its heartbeat expires, once each; its users go offline', async (ctx, t) => {
    const name = uniqueName('presence-failover');
    const plain = uniqueName('plain-failover');
    const alice = await member(ctx, 0, name, 'alice');
    const bob = await member(ctx, 1, name, 'bob');
    await member(ctx, VICTIM, name, 'carol');
    await member(ctx, VICTIM, name, 'dave');
    const daveStays = await member(ctx, 0, name, 'dave');
    const watching = await watcher(ctx, 0, ['carol', 'dave']);
    await waitFor(() => watching.watch.includes('online:carol,dave'), {
      what: `carol and dave online at sign-in; got ${JSON.stringify(watching.watch)}`,
    });
    await subscribe(await ctx.clients[0].pusherJS(), plain);
    await subscribe(await ctx.clients[VICTIM].pusherJS(), plain);
    await subscribe(await ctx.clients[VICTIM].pusherJS(), plain);
    await waitFor(async () => await countFrom(ctx, 0, plain) === 3, { what: `3 subscriptions to ${plain}` });
    assert.deepEqual(await usersFrom(ctx, 0, name), ['alice', 'bob', 'carol', 'dave']);

    await ctx.cluster.kill9(VICTIM);
    const killed = Date.now();
    for (const ch of [alice, bob]) {
      await waitFor(() => received(ch, 'pusher:member_removed').length > 0, {
        timeout: REMOVAL_GUARD_MS, what: `member_removed at ${ch.members.me.id} after the kill`,
      });
    }
    await waitFor(() => watching.watch.includes('offline:carol'), {
      timeout: REMOVAL_GUARD_MS, what: `carol offline; got ${JSON.stringify(watching.watch)}`,
    });
    t.diagnostic(`members removed and carol offline ${Date.now() - killed} ms after the kill`);

    await marker(sdk(ctx.nodes[0]), name, [alice, bob, daveStays]);
    for (const ch of [alice, bob, daveStays]) {
      assert.deepEqual(received(ch, 'pusher:member_removed'), [{ id: 'carol', info: { id: 'carol' } }],
        `exactly one member_removed, for carol only, at ${ch.members.me.id}`);
    }
    assert.equal(received(alice, 'pusher:member_added').length, 3, 'no member_added after the kill');
    for (const i of [0, 1]) assert.deepEqual(await usersFrom(ctx, i, name), ['alice', 'bob', 'dave'], `node ${i + 1}`);
    assert.deepEqual(watching.watch.filter((w) => w.startsWith('offline')), ['offline:carol'], 'dave stays online');
    await waitFor(async () => await countFrom(ctx, 0, plain) === 1 && await countFrom(ctx, 1, plain) === 1, {
      what: `node 3's subscriptions to ${plain} dropped from the counts`,
    });
  });

  test('after the kill the survivors still deliver to each other', async (ctx) => {
    const name = uniqueName('after-kill');
    const a = await subscribe(await ctx.clients[0].pusherJS(), name);
    const b = await subscribe(await ctx.clients[1].pusherJS(), name);
    assert.equal((await sdk(ctx.nodes[1]).trigger(name, 'still-here', { ok: true })).status, 200);
    assert.deepEqual(await waitEvents(a, 'still-here'), [{ ok: true }]);
    assert.deepEqual(await waitEvents(b, 'still-here'), [{ ok: true }]);
  });
});
