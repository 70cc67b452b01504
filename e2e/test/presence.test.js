'use strict';
// Presence channels (docs/protocol.md and Pusher docs "Presence channels"):
// members are users, not connections. Two tabs of one user make one member:
// member_added only on the user's first connection, member_removed only when
// the last one leaves. Members lists and counts as pusher-js builds them from
// subscription_succeeded, the exact {ids, hash, count} shape on raw frames,
// and the limits (user_info <= 1 KB, user_id <= 128 chars, 100 members or the
// app's max_presence_members): over a limit the subscription fails and nobody
// sees a member_added.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const {
  useAuthEndpoint, authedClient, subscribeFails, waitEvents, marker, rawAuthorized, waitConnections,
} = require('../lib/features');
const { startAuthEndpoint } = require('../lib/backend');

const SMALL_APP = { id: 'small', key: 'key-small', secret: 'secret-small', max_presence_members: 3 };
const APPS = [
  { id: '1', key: 'key-1', secret: 'secret-1', client_events: true },
  SMALL_APP,
];

// member returns the auth params of a presence member.
function member(id, info) {
  const params = { user_id: id };
  if (info !== undefined) params.user_info = JSON.stringify(info);
  return params;
}

// memberIds lists the ids in a pusher-js Members collection, sorted.
function memberIds(members) {
  const ids = [];
  members.each((m) => ids.push(m.id));
  return ids.sort();
}

// join opens a pusher-js client for params and subscribes it to name.
async function join(ctx, name, params, opts) {
  return subscribe(await authedClient(ctx, params, opts), name);
}

// infoOfSize returns a user_info object whose JSON text is exactly n bytes.
function infoOfSize(n) {
  const info = { s: 'x'.repeat(n - '{"s":""}'.length) };
  assert.equal(JSON.stringify(info).length, n);
  return info;
}

async function closeClient(client) {
  client.disconnect();
  await waitFor(() => client.connection.state === 'disconnected', { what: 'pusher-js disconnected' });
}

describeServer('presence channels', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('two tabs of one user: one member_added, no member_removed until the last tab closes', async ({ server }) => {
    const name = uniqueName('presence-room');
    const api = sdk(server);
    const bob = await join(ctx, name, member('bob', { name: 'Bob' }));
    assert.equal(bob.members.count, 1);
    assert.equal(bob.members.me.id, 'bob');
    assert.deepEqual(bob.members.me.info, { name: 'Bob' });

    const tab1 = await join(ctx, name, member('alice', { name: 'Alice' }));
    assert.deepEqual(await waitEvents(bob, 'pusher:member_added'), [{ id: 'alice', info: { name: 'Alice' } }]);
    assert.equal(tab1.members.count, 2);
    assert.deepEqual(memberIds(tab1.members), ['alice', 'bob']);
    assert.deepEqual(tab1.members.get('bob').info, { name: 'Bob' });

    const tab2 = await join(ctx, name, member('alice', { name: 'Alice' }));
    assert.equal(tab2.members.count, 2, 'a second tab is not a second member');
    assert.deepEqual(memberIds(tab2.members), ['alice', 'bob']);
    assert.equal(tab2.members.me.id, 'alice');
    // tab2's own client event comes after anything its subscription caused.
    tab2.pusher.channel(name).trigger('client-after-join', { from: 'tab2' });
    await waitEvents(bob, 'client-after-join');
    await waitEvents(tab1, 'client-after-join');
    assert.equal(received(bob, 'pusher:member_added').length, 1, 'exactly one member_added for alice');
    assert.deepEqual(received(tab1, 'pusher:member_added'), [], 'no member_added for a user already present');
    assert.equal(bob.members.count, 2);

    await closeClient(tab1.pusher);
    await waitConnections(server, name, 2);
    await marker(api, name, [bob, tab2]);
    assert.deepEqual(received(bob, 'pusher:member_removed'), [], 'alice still has a tab open');
    assert.equal(bob.members.count, 2);

    await closeClient(tab2.pusher);
    assert.deepEqual(await waitEvents(bob, 'pusher:member_removed'), [{ id: 'alice', info: { name: 'Alice' } }]);
    await marker(api, name, [bob]);
    assert.equal(received(bob, 'pusher:member_removed').length, 1, 'exactly one member_removed for alice');
    assert.equal(bob.members.count, 1);
    assert.deepEqual(memberIds(bob.members), ['bob']);
  });

  test('unsubscribing one tab is like closing it', async ({ server }) => {
    const name = uniqueName('presence-unsub');
    const bob = await join(ctx, name, member('bob'));
    const tab1 = await join(ctx, name, member('alice', { tab: true }));
    const tab2 = await join(ctx, name, member('alice', { tab: true }));
    await waitEvents(bob, 'pusher:member_added');
    tab1.pusher.unsubscribe(name);
    await waitConnections(server, name, 2);
    await marker(sdk(server), name, [bob, tab2]);
    assert.deepEqual(received(bob, 'pusher:member_removed'), []);
    tab2.pusher.unsubscribe(name);
    assert.deepEqual(await waitEvents(bob, 'pusher:member_removed'), [{ id: 'alice', info: { tab: true } }]);
  });

  test('raw frames: subscription_succeeded {presence: {ids, hash, count}} and member_added {user_id, user_info}',
    async ({ server, clients }) => {
      const name = uniqueName('presence-raw');
      const [r1, r2, r3] = [await clients.raw(), await clients.raw(), await clients.raw()];
      const first = await rawAuthorized(server, r1, name, { user_id: 'u1', user_info: { n: 1 } });
      assert.equal(first.event, 'pusher_internal:subscription_succeeded', first.text);
      assert.equal(typeof first.data, 'string', 'data is a JSON-encoded string');
      assert.deepEqual(first.payload, { presence: { ids: ['u1'], hash: { u1: { n: 1 } }, count: 1 } });

      const second = await rawAuthorized(server, r2, name, { user_id: 'u2', user_info: { n: 2 } });
      const p = second.payload.presence;
      assert.deepEqual([...p.ids].sort(), ['u1', 'u2']);
      assert.deepEqual(p.hash, { u1: { n: 1 }, u2: { n: 2 } });
      assert.equal(p.count, 2);
      const added = await r1.next('pusher_internal:member_added');
      assert.equal(added.channel, name);
      assert.deepEqual(added.payload, { user_id: 'u2', user_info: { n: 2 } });

      const tab = await rawAuthorized(server, r3, name, { user_id: 'u1', user_info: { n: 1 } });
      assert.equal(tab.payload.presence.count, 2, tab.text);
      assert.deepEqual([...tab.payload.presence.ids].sort(), ['u1', 'u2']);
      assert.equal(r2.frames.filter((f) => f.event === 'pusher_internal:member_added').length, 0, r2.describe());
    });

  test('user_info of exactly 1 KB is accepted', async () => {
    const name = uniqueName('presence-kb');
    const big = await join(ctx, name, member('big', infoOfSize(1024)));
    assert.deepEqual(big.members.me.info, infoOfSize(1024));
  });

  test('user_info over 1 KB -> subscription_error, nobody sees member_added', async ({ server }) => {
    const name = uniqueName('presence-toobig');
    const bob = await join(ctx, name, member('bob'));
    const carol = await subscribeFails(await authedClient(ctx, member('carol', infoOfSize(1025))), name);
    assert.equal(typeof carol.failures[0].error, 'string', JSON.stringify(carol.failures));
    await marker(sdk(server), name, [bob]);
    assert.deepEqual(received(bob, 'pusher:member_added'), []);
    assert.equal(bob.members.count, 1);
    const users = await (await sdk(server).get({ path: `/channels/${name}/users` })).json();
    assert.deepEqual(users, { users: [{ id: 'bob' }] });
  });

  test('user_id of 128 characters is accepted, 129 is refused', async ({ server }) => {
    const name = uniqueName('presence-id');
    const ok = await join(ctx, name, member('u'.repeat(128)));
    const bad = await subscribeFails(await authedClient(ctx, member('v'.repeat(129))), name);
    assert.equal(bad.subscribed, false);
    await marker(sdk(server), name, [ok]);
    assert.deepEqual(received(ok, 'pusher:member_added'), []);
  });

  test('max_presence_members counts users, not connections', async ({ server }, t) => {
    const app = { appId: SMALL_APP.id, key: SMALL_APP.key, secret: SMALL_APP.secret };
    const auth = await startAuthEndpoint(server, { app });
    t.after(() => auth.close());
    const client = (params) => ctx.clients.pusherJS({ key: app.key, pusher: auth.pusherOptions(params) });
    const name = uniqueName('presence-small');
    const u1 = await subscribe(await client(member('u1')), name);
    await subscribe(await client(member('u2')), name);
    await subscribe(await client(member('u3')), name);
    const extra = await subscribeFails(await client(member('u4')), name);
    assert.equal(extra.subscribed, false);
    const tab = await subscribe(await client(member('u1')), name);
    assert.equal(tab.members.count, 3, 'a member\'s second tab fits under the limit');
    await marker(sdk(server, app), name, [u1]);
    assert.deepEqual(received(u1, 'pusher:member_added').map((m) => m.id), ['u2', 'u3']);
  });

  test('the 101st distinct member is refused by default (raw clients)', async ({ server, clients }) => {
    const name = uniqueName('presence-hundred');
    const joined = [];
    for (let batch = 0; batch < 10; batch++) {
      joined.push(...await Promise.all(Array.from({ length: 10 }, async (_, i) => {
        const raw = await clients.raw();
        return rawAuthorized(server, raw, name, { user_id: `m${batch * 10 + i}` });
      })));
    }
    for (const reply of joined) assert.equal(reply.event, 'pusher_internal:subscription_succeeded', reply.text);
    const last = await rawAuthorized(server, await clients.raw(), name, { user_id: 'm100' });
    assert.equal(last.event, 'pusher:subscription_error', last.text);
    const again = await rawAuthorized(server, await clients.raw(), name, { user_id: 'm0' });
    assert.equal(again.event, 'pusher_internal:subscription_succeeded', 'another tab of a member still fits');
    assert.equal(again.payload.presence.count, 100);
  });
});
