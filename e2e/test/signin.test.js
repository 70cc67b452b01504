'use strict';
// User sign-in (docs/protocol.md "User sign-in and the watchlist", Pusher docs
// "User authentication", "Sending events to authenticated users", "Terminating
// user connections"): pusher-js' signin() with a userAuthentication endpoint
// that signs with the SDK's authenticateUser; the SDK's sendToUser reaches
// every tab of that user and nobody else; terminateUserConnections closes
// exactly that user's connections; a bad signature gets pusher:error 4009 and
// close; #server-to-user- channels cannot be joined without signing in; a
// presence auth without channel_data makes the signed-in user the member.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const {
  useAuthEndpoint, authedClient, waitEvents, signIn, rawSubscribe,
} = require('../lib/features');

const UNAUTHORIZED = 4009;

// signedIn opens a pusher-js client and signs it in as id.
async function signedIn(ctx, id, extra = {}) {
  const client = await authedClient(ctx, { user_id: id, ...extra });
  await signIn(client);
  return client;
}

// inbox records what pusher-js' user facade emits (sendToUser events).
function inbox(client) {
  const got = [];
  client.user.bind_global((event, data) => got.push({ event, data }));
  return got;
}

// rawSignin signs a RawClient in with the SDK's authenticateUser output.
function rawSignin(server, raw, user) {
  const signed = sdk(server).authenticateUser(raw.socketId, user);
  raw.send({ event: 'pusher:signin', data: signed });
  return raw.next((f) => f.event === 'pusher:signin_success' || f.event === 'pusher:error');
}

// leftConnected reports whether client's state left 'connected' after index.
function leftConnected(client, from) {
  return client.seen.states.slice(from).some((s) => s !== 'connected');
}

// fayeSocket returns the faye-websocket client under a connected pusher-js.
// When the server closes with 4000-4099, pusher-js calls close() on the
// already-closed socket and faye arms a 30 s timer that nothing clears,
// keeping the test process alive; the test clears it by hand.
function fayeSocket(client) {
  return client.connection.connection.transport.socket;
}

describeServer('user sign-in', {}, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('signin() succeeds and pusher-js learns the user_data', async () => {
    const client = await authedClient(ctx, { user_id: 'ann', user_info: JSON.stringify({ name: 'Ann' }) });
    const data = await signIn(client);
    assert.deepEqual(data, { id: 'ann', user_info: { name: 'Ann' } });
    assert.equal(client.user.serverToUserChannel.name, '#server-to-user-ann');
  });

  test('sendToUser reaches both tabs of the user and nobody else', async ({ server }) => {
    const [tab1, tab2, other] = [await signedIn(ctx, 'alice'), await signedIn(ctx, 'alice'), await signedIn(ctx, 'bob')];
    const [in1, in2, inOther] = [inbox(tab1), inbox(tab2), inbox(other)];
    const api = sdk(server);
    const res = await api.sendToUser('alice', 'notice', { text: 'for alice ✓' });
    assert.equal(res.status, 200);
    for (const box of [in1, in2]) {
      await waitFor(() => box.length === 1, { what: `notice at a tab of alice; got ${JSON.stringify(box)}` });
      assert.deepEqual(box, [{ event: 'notice', data: { text: 'for alice ✓' } }]);
    }
    await api.sendToUser('bob', 'later', { n: 2 });
    await waitFor(() => inOther.length > 0, { what: 'bob\'s own event' });
    assert.deepEqual(inOther, [{ event: 'later', data: { n: 2 } }], 'bob must get only his own event');
    await api.sendToUser('alice', 'again', {});
    for (const box of [in1, in2]) {
      await waitFor(() => box.length === 2, { what: `a second event at a tab of alice; got ${JSON.stringify(box)}` });
      assert.deepEqual(box.map((e) => e.event), ['notice', 'again'], 'alice must not get bob\'s event');
    }
  });

  test('terminateUserConnections closes that user\'s connections only', async ({ server, clients }, t) => {
    const [tab1, tab2, other] = [await signedIn(ctx, 'carl'), await signedIn(ctx, 'carl'), await signedIn(ctx, 'dora')];
    const raw = await clients.raw();
    const ok = await rawSignin(server, raw, { id: 'carl' });
    assert.equal(ok.event, 'pusher:signin_success', ok.text);
    const marks = [tab1, tab2].map((c) => c.seen.states.length);
    const otherSocket = other.connection.socket_id;
    const res = await sdk(server).terminateUserConnections('carl');
    assert.equal(res.status, 200);
    const closed = await raw.waitClosed();
    await waitFor(() => leftConnected(tab1, marks[0]) && leftConnected(tab2, marks[1]), {
      what: `both pusher-js tabs of carl closed; states ${JSON.stringify([tab1.seen.states, tab2.seen.states])}`,
    });
    t.diagnostic(`terminate closed a raw connection with ${closed.code} "${closed.reason}"`);
    const inOther = inbox(other);
    await sdk(server).sendToUser('dora', 'still-here', {});
    await waitFor(() => inOther.length > 0, { what: 'dora still receives' });
    assert.equal(other.connection.socket_id, otherSocket, 'dora was not disconnected');
    assert.ok(!leftConnected(other, 0), `dora's states ${JSON.stringify(other.seen.states)}`);
  });

  test('bad sign-in signature -> pusher:error 4009 and close', async ({ server, clients }) => {
    const raw = await clients.raw();
    const forged = sdk(server, { secret: 'not-the-secret' }).authenticateUser(raw.socketId, { id: 'eve' });
    raw.send({ event: 'pusher:signin', data: forged });
    const err = await raw.next('pusher:error');
    assert.equal(err.payload.code, UNAUTHORIZED, err.text);
    const closed = await raw.waitClosed();
    assert.equal(closed.code, UNAUTHORIZED);
  });

  test('pusher-js with a forged sign-in gets 4009 and never becomes signed in', async () => {
    const client = await authedClient(ctx, { user_id: 'mallory', forge: '1' });
    const socket = fayeSocket(client);
    const errors = [];
    client.connection.bind('error', (e) => errors.push(e));
    client.signin();
    await waitFor(() => errors.some((e) => e.type === 'PusherError' && e.data && e.data.code === UNAUTHORIZED), {
      what: `pusher:error 4009; messages ${JSON.stringify(client.seen.messages)}`,
    });
    await waitFor(() => client.connection.state === 'disconnected', {
      what: `pusher-js gives up after 4009 (states ${JSON.stringify(client.seen.states)})`,
    });
    assert.equal(client.user.user_data, null);
    clearTimeout(socket._closeTimer);
  });

  test('#server-to-user- channels cannot be subscribed without signing in as that user', async ({ server, clients }) => {
    const raw = await clients.raw();
    const reply = await rawSubscribe(raw, '#server-to-user-alice');
    assert.equal(reply.event, 'pusher:subscription_error', reply.text);
    const me = await clients.raw();
    const ok = await rawSignin(server, me, { id: 'frank' });
    assert.equal(ok.event, 'pusher:signin_success', ok.text);
    const own = await rawSubscribe(me, '#server-to-user-frank'); // as pusher-js does after signin_success
    assert.equal(own.event, 'pusher_internal:subscription_succeeded', own.text);
    const theirs = await rawSubscribe(me, '#server-to-user-alice');
    assert.equal(theirs.event, 'pusher:subscription_error', 'another user\'s channel');
    await sdk(server).sendToUser('alice', 'private-note', {});
    await sdk(server).sendToUser('frank', 'own-note', {});
    await me.next('own-note');
    await rawSubscribe(raw, uniqueName('public-later'));
    assert.equal(raw.find('private-note'), undefined, raw.describe());
    assert.equal(me.find('private-note'), undefined, me.describe());
  });

  test('presence auth without channel_data joins as the signed-in user', async ({ server }) => {
    const name = uniqueName('presence-signed');
    const client = await signedIn(ctx, 'gina', { user_info: JSON.stringify({ name: 'Gina' }), omit_channel_data: '1' });
    const ch = await subscribe(client, name);
    assert.equal(ch.members.me.id, 'gina');
    assert.deepEqual(ch.members.me.info, { name: 'Gina' });
    const users = await (await sdk(server).get({ path: `/channels/${name}/users` })).json();
    assert.deepEqual(users, { users: [{ id: 'gina' }] });
  });

  test('presence auth without channel_data and without sign-in -> subscription_error', async ({ server, clients }) => {
    const raw = await clients.raw();
    const name = uniqueName('presence-anon');
    const reply = await rawSubscribe(raw, name, sdk(server).authorizeChannel(raw.socketId, name).auth);
    assert.equal(reply.event, 'pusher:subscription_error', reply.text);
    assert.ok(raw.isOpen, raw.closeText());
  });

  test('a signed-in connection still gets its channel events', async ({ server }) => {
    const client = await signedIn(ctx, 'hank');
    const ch = await subscribe(client, uniqueName('news'));
    await sdk(server).trigger(ch.name, 'headline', 'x');
    assert.deepEqual(await waitEvents(ch, 'headline'), ['x']);
  });
});
