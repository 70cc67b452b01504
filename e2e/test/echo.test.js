'use strict';
// Laravel Echo 2.5.0 (broadcaster 'pusher', the pusher-js client passed in)
// against roost: whisper() on a private channel reaches the other client's
// listenForWhisper and never the sender; listen() gets server events under
// Echo's namespace rules; join() reports here/joining/leaving per user
// (docs/protocol.md "Client events", "Channels").

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { useAuthEndpoint, authedClient, echoFor } = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];

// echoAs opens a pusher-js client for user id (info {name}) and wraps it.
async function echoAs(ctx, id, name) {
  const client = await authedClient(ctx, { user_id: id, user_info: JSON.stringify({ id, name }) });
  return echoFor(client);
}

// subscribed resolves once an Echo channel's subscription succeeded.
function subscribed(channel) {
  return waitFor(() => channel.subscription.subscribed, { what: `Echo subscribed to ${channel.name}` });
}

// collect returns a list that callback-style Echo APIs push into.
function collect() {
  const list = [];
  return { list, push: (x) => list.push(x) };
}

describeServer('laravel echo', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('private().whisper() reaches the other client and not the sender', async ({ server }) => {
    const room = uniqueName('room');
    const [alice, bob] = [await echoAs(ctx, 'alice', 'Alice'), await echoAs(ctx, 'bob', 'Bob')];
    const atAlice = collect();
    const atBob = collect();
    const chA = alice.private(room).listenForWhisper('typing', atAlice.push);
    const chB = bob.private(room).listenForWhisper('typing', atBob.push);
    assert.equal(chA.name, `private-${room}`);
    await subscribed(chA);
    await subscribed(chB);

    chA.whisper('typing', { who: 'alice', typing: true });
    await waitFor(() => atBob.list.length === 1, { what: `whisper at bob; got ${JSON.stringify(atBob.list)}` });
    assert.deepEqual(atBob.list, [{ who: 'alice', typing: true }]);

    // A later server event reaches alice; her own whisper still has not.
    const later = collect();
    chA.listen('.later', later.push);
    await sdk(server).trigger(`private-${room}`, 'later', { n: 1 });
    await waitFor(() => later.list.length === 1, { what: 'server event at alice' });
    assert.deepEqual(atAlice.list, [], 'the sender must not get its own whisper');

    chB.whisper('typing', { who: 'bob' });
    await waitFor(() => atAlice.list.length === 1, { what: 'bob\'s whisper at alice' });
    assert.deepEqual(atAlice.list, [{ who: 'bob' }]);
    assert.equal(atBob.list.length, 1, 'bob must not get his own whisper');
  });

  test('listen() receives server events with and without the App.Events namespace', async ({ server }) => {
    const room = uniqueName('orders');
    const echo = await echoAs(ctx, 'carol', 'Carol');
    const namespaced = collect();
    const dotted = collect();
    const ch = echo.private(room)
      .listen('OrderShipped', namespaced.push)
      .listen('.plain-event', dotted.push);
    await subscribed(ch);
    const api = sdk(server);
    await api.trigger(`private-${room}`, 'App\\Events\\OrderShipped', { order: 1 });
    await api.trigger(`private-${room}`, 'plain-event', { order: 2 });
    await waitFor(() => namespaced.list.length === 1 && dotted.list.length === 1, {
      what: `both events; got ${JSON.stringify([namespaced.list, dotted.list])}`,
    });
    assert.deepEqual(namespaced.list, [{ order: 1 }]);
    assert.deepEqual(dotted.list, [{ order: 2 }]);
  });

  test('join(): here lists members, joining and leaving fire once per user', async ({ server }) => {
    const room = uniqueName('chat');
    const alice = await echoAs(ctx, 'alice', 'Alice');
    const here = collect();
    const joining = collect();
    const leaving = collect();
    const chA = alice.join(room).here(here.push).joining(joining.push).leaving(leaving.push);
    assert.equal(chA.name, `presence-${room}`);
    await subscribed(chA);
    assert.deepEqual(here.list, [[{ id: 'alice', name: 'Alice' }]]);

    const bobTab1 = await echoAs(ctx, 'bob', 'Bob');
    const bobHere = collect();
    const chB1 = bobTab1.join(room).here(bobHere.push);
    await subscribed(chB1);
    const names = bobHere.list[0].map((u) => u.name).sort();
    assert.deepEqual(names, ['Alice', 'Bob']);
    await waitFor(() => joining.list.length === 1, { what: 'joining(bob) at alice' });
    assert.deepEqual(joining.list, [{ id: 'bob', name: 'Bob' }]);

    const bobTab2 = await echoAs(ctx, 'bob', 'Bob');
    const chB2 = bobTab2.join(room);
    await subscribed(chB2);
    const whispers = collect();
    chA.listenForWhisper('hello', whispers.push);
    chB2.whisper('hello', { tab: 2 }); // comes after anything bob's 2nd tab caused
    await waitFor(() => whispers.list.length === 1, { what: 'whisper from bob\'s second tab at alice' });
    assert.equal(joining.list.length, 1, 'a second tab of bob is not a new member');

    bobTab1.disconnect();
    bobTab2.disconnect();
    await waitFor(() => leaving.list.length === 1, { what: `leaving(bob) at alice; got ${JSON.stringify(leaving.list)}` });
    assert.deepEqual(leaving.list, [{ id: 'bob', name: 'Bob' }]);
    const marks = collect();
    chA.listen('.mark', marks.push);
    await sdk(server).trigger(`presence-${room}`, 'mark', {});
    await waitFor(() => marks.list.length === 1, { what: 'a later event at alice' });
    assert.equal(leaving.list.length, 1, 'leaving fires once for two tabs');
  });
});
