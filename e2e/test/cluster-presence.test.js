'use strict';
// Presence and client events across a three-node cluster over Redis
// (docs/protocol.md "Presence channels", "Client events"): a member is a user,
// not a connection, cluster-wide, so two tabs of one user on different nodes
// make one member_added and one member_removed (after the last tab); the member
// list is the same whichever node answers; client events (Laravel Echo's
// whisper) cross nodes, never echo to the sender, carry user_id; and the
// client-event rate limit counts per connection, not per user or cluster.

const assert = require('node:assert/strict');
const { describeCluster } = require('../lib/cluster');
const { uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const {
  authedClient, waitEvents, marker, pusherErrors, echoFor, rawAuthorized,
} = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const RATE_LIMIT = 4301;
const PER_SECOND = 10;
const BURST = 30;

// member returns the auth params of a presence member.
function member(id, info) {
  const params = { user_id: id };
  if (info !== undefined) params.user_info = JSON.stringify(info);
  return params;
}

// join opens a pusher-js client on node i as params and subscribes it to name.
async function join(ctx, i, name, params) {
  return subscribe(await authedClient(ctx.at(i), params), name);
}

// memberIds lists the ids in a pusher-js Members collection, sorted.
function memberIds(members) {
  const ids = [];
  members.each((m) => ids.push(m.id));
  return ids.sort();
}

// usersFrom asks node i for GET /channels/{name}/users, ids sorted.
async function usersFrom(ctx, i, name) {
  const res = await sdk(ctx.nodes[i]).get({ path: `/channels/${name}/users` });
  assert.equal(res.status, 200, `users of ${name} from node ${i + 1}`);
  const body = await res.json();
  return { users: [...body.users].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
}

// closeClient disconnects a pusher-js client and waits until it is closed.
async function closeClient(client) {
  client.disconnect();
  await waitFor(() => client.connection.state === 'disconnected', { what: 'pusher-js disconnected' });
}

// connectionsOf polls node i until name has n subscribed connections.
function connectionsOf(ctx, i, name, n) {
  let last;
  return waitFor(async () => {
    const res = await sdk(ctx.nodes[i]).get({ path: `/channels/${name}`, params: { info: 'subscription_count' } });
    last = await res.json();
    return last.subscription_count === n;
  }, { what: `${n} connections on ${name} from node ${i + 1}; last ${JSON.stringify(last)}` });
}

// echoAt opens a pusher-js client on node i as user id and wraps it in Echo.
async function echoAt(ctx, i, id) {
  return echoFor(await authedClient(ctx.at(i), member(id, { id })));
}

// rateLimited counts the 4301 errors client received.
function rateLimited(client) {
  return pusherErrors(client).filter((e) => e.code === RATE_LIMIT).length;
}

describeCluster('cluster: presence and client events across nodes', { apps: APPS }, (test) => {
  test('two tabs of one user on nodes 1 and 2: one member_added, member_removed after the second closes',
    async (ctx) => {
      const name = uniqueName('presence-room');
      const api = sdk(ctx.nodes[2]);
      const bob = await join(ctx, 2, name, member('bob', { name: 'Bob' }));
      const tab1 = await join(ctx, 0, name, member('alice', { name: 'Alice' }));
      assert.deepEqual(await waitEvents(bob, 'pusher:member_added'), [{ id: 'alice', info: { name: 'Alice' } }]);
      assert.deepEqual(memberIds(tab1.members), ['alice', 'bob']);
      assert.deepEqual(tab1.members.get('bob').info, { name: 'Bob' });

      const tab2 = await join(ctx, 1, name, member('alice', { name: 'Alice' }));
      assert.equal(tab2.members.count, 2, 'a second tab on another node is not a second member');
      assert.deepEqual(memberIds(tab2.members), ['alice', 'bob']);
      assert.equal(tab2.members.me.id, 'alice');
      tab2.trigger('client-after-join', { from: 'tab2' }); // comes after anything tab2's join caused
      await waitEvents(bob, 'client-after-join');
      await waitEvents(tab1, 'client-after-join');
      assert.equal(received(bob, 'pusher:member_added').length, 1, 'exactly one member_added for alice');
      assert.deepEqual(received(tab1, 'pusher:member_added'), [], 'no member_added for a user already present');

      await closeClient(tab1.pusher);
      await connectionsOf(ctx, 2, name, 2);
      await marker(api, name, [bob, tab2]);
      assert.deepEqual(received(bob, 'pusher:member_removed'), [], 'alice still has a tab open on node 2');
      assert.deepEqual((await usersFrom(ctx, 2, name)).users, [{ id: 'alice' }, { id: 'bob' }]);

      await closeClient(tab2.pusher);
      assert.deepEqual(await waitEvents(bob, 'pusher:member_removed'), [{ id: 'alice', info: { name: 'Alice' } }]);
      await marker(api, name, [bob]);
      assert.equal(received(bob, 'pusher:member_removed').length, 1, 'exactly one member_removed for alice');
      assert.deepEqual(memberIds(bob.members), ['bob']);
    });

  test('the member list is identical from every node, in the API and in subscription_succeeded', async (ctx) => {
    const name = uniqueName('presence-list');
    const u1 = await join(ctx, 0, name, member('u1', { n: 1 }));
    await join(ctx, 1, name, member('u2', { n: 2 }));
    await join(ctx, 2, name, member('u3', { n: 3 }));
    await join(ctx, 1, name, member('u1', { n: 1 }));
    const want = { users: [{ id: 'u1' }, { id: 'u2' }, { id: 'u3' }] };
    for (let i = 0; i < ctx.nodes.length; i++) {
      assert.deepEqual(await usersFrom(ctx, i, name), want, `GET /users from node ${i + 1}`);
      const info = await (await sdk(ctx.nodes[i]).get({ path: `/channels/${name}`, params: { info: 'user_count' } })).json();
      assert.deepEqual(info, { occupied: true, user_count: 3 }, `user_count from node ${i + 1}`);
    }
    for (let i = 0; i < ctx.nodes.length; i++) {
      const late = await join(ctx, i, name, member(`late${i}`));
      assert.deepEqual(memberIds(late.members), ['late' + i, 'u1', 'u2', 'u3'].concat(
        Array.from({ length: i }, (_, j) => `late${j}`)).sort(), `members seen by a joiner on node ${i + 1}`);
      assert.deepEqual(late.members.get('u2').info, { n: 2 });
    }
    await waitEvents(u1, 'pusher:member_added', 5);
    assert.deepEqual(received(u1, 'pusher:member_added').map((m) => m.id).sort(),
      ['late0', 'late1', 'late2', 'u2', 'u3'], 'one member_added per user, none for u1\'s second tab');
  });

  test('raw subscription_succeeded on node 2 lists the members of nodes 1 and 3 with their info', async (ctx) => {
    const name = uniqueName('presence-raw');
    await join(ctx, 0, name, member('a', { side: 1 }));
    await join(ctx, 2, name, member('c', { side: 3 }));
    const raw = await ctx.clients[1].raw();
    const reply = await rawAuthorized(ctx.nodes[1], raw, name, { user_id: 'b', user_info: { side: 2 } });
    assert.equal(reply.event, 'pusher_internal:subscription_succeeded', reply.text);
    const p = reply.payload.presence;
    assert.deepEqual([...p.ids].sort(), ['a', 'b', 'c']);
    assert.deepEqual(p.hash, { a: { side: 1 }, b: { side: 2 }, c: { side: 3 } });
    assert.equal(p.count, 3);
  });

  test('Echo whisper on a private channel crosses nodes and is never echoed', async (ctx) => {
    const room = uniqueName('room');
    const [alice, bob] = [await echoAt(ctx, 0, 'alice'), await echoAt(ctx, 1, 'bob')];
    const [atAlice, atBob] = [[], []];
    const chA = alice.private(room).listenForWhisper('typing', (d) => atAlice.push(d));
    const chB = bob.private(room).listenForWhisper('typing', (d) => atBob.push(d));
    await waitFor(() => chA.subscription.subscribed && chB.subscription.subscribed, { what: 'both subscribed' });
    chA.whisper('typing', { who: 'alice' });
    await waitFor(() => atBob.length === 1, { what: `alice's whisper on node 2; got ${JSON.stringify(atBob)}` });
    chB.whisper('typing', { who: 'bob' });
    await waitFor(() => atAlice.length === 1, { what: `bob's whisper on node 1; got ${JSON.stringify(atAlice)}` });
    assert.deepEqual(atBob, [{ who: 'alice' }], 'bob must not get his own whisper');
    assert.deepEqual(atAlice, [{ who: 'bob' }], 'alice must not get her own whisper');
  });

  test('a client event on a presence channel reaches node 3 with the sender\'s user_id', async (ctx) => {
    const name = uniqueName('presence-chat');
    const sender = await join(ctx, 0, name, member('sender'));
    const peer = await join(ctx, 1, name, member('peer'));
    const raw = await ctx.clients[2].raw();
    await rawAuthorized(ctx.nodes[2], raw, name, { user_id: 'watcher' });
    sender.trigger('client-wave', { hi: 1 });
    const frame = await raw.next('client-wave');
    assert.equal(frame.user_id, 'sender', frame.text);
    assert.deepEqual(frame.payload, { hi: 1 });
    assert.deepEqual(await waitEvents(peer, 'client-wave'), [{ hi: 1 }]);
    await marker(sdk(ctx.nodes[2]), name, [sender]);
    assert.deepEqual(received(sender, 'client-wave'), [], 'not echoed to the sender');
  });

  test('the client-event rate limit counts per connection, not per user across nodes', async (ctx) => {
    const name = uniqueName('private-burst');
    const tabA = await join(ctx, 0, name, member('same-user'));
    const tabB = await join(ctx, 1, name, member('same-user'));
    const receiver = await join(ctx, 2, name, member('receiver'));
    // Together 19 events of one user in one second: over any per-user limit,
    // within each connection's. Tab B keeps room for one more below.
    for (let i = 0; i < PER_SECOND; i++) tabA.trigger('client-a', { i });
    for (let i = 0; i < PER_SECOND - 1; i++) tabB.trigger('client-b', { i });
    await waitEvents(receiver, 'client-a', PER_SECOND);
    await waitEvents(receiver, 'client-b', PER_SECOND - 1);
    assert.deepEqual(pusherErrors(tabA.pusher), [], `${PER_SECOND} from tab A are within its own limit`);
    assert.deepEqual(pusherErrors(tabB.pusher), [], `${PER_SECOND - 1} from tab B are within its own limit`);

    for (let i = 0; i < BURST; i++) tabA.trigger('client-burst', { i });
    await waitFor(() => received(receiver, 'client-burst').length + rateLimited(tabA.pusher) === BURST, {
      what: `each of ${BURST} events delivered or refused with ${RATE_LIMIT}; delivered ` +
        `${received(receiver, 'client-burst').length}, errors ${JSON.stringify(pusherErrors(tabA.pusher))}`,
    });
    assert.ok(rateLimited(tabA.pusher) >= 1, 'a burst of 30 must hit the limit');
    tabB.trigger('client-b-after', {});
    await waitEvents(receiver, 'client-b-after');
    assert.deepEqual(pusherErrors(tabB.pusher), [], 'tab B on node 2 is not limited by tab A\'s burst');
    assert.equal(tabA.pusher.connection.state, 'connected');
  });
});
