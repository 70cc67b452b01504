'use strict';
// Client events (docs/protocol.md "Client events", Pusher docs "Client
// events"): only client- names on private or presence channels the sender
// joined, only for apps with client_events, never echoed to the sender, user_id
// added on presence channels, and at most 10 per second per connection: beyond
// that pusher:error 4301 and the connection stays up.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { startAuthEndpoint } = require('../lib/backend');
const {
  useAuthEndpoint, authedClient, waitEvents, marker, pusherErrors, rawAuthorized, rawSubscribe,
} = require('../lib/features');

const QUIET = { id: 'quiet', key: 'key-quiet', secret: 'secret-quiet', client_events: false };
const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }, QUIET];
const RATE_LIMIT = 4301;
const BURST = 30;

// pair subscribes a sender and a receiver (distinct users) to name.
async function pair(ctx, name) {
  const sender = await subscribe(await authedClient(ctx, { user_id: 'sender' }), name);
  const receiver = await subscribe(await authedClient(ctx, { user_id: 'receiver' }), name);
  return [sender, receiver];
}

// waitError waits for a pusher:error at client and returns them all.
async function waitError(client) {
  await waitFor(() => pusherErrors(client).length > 0, {
    what: `pusher:error; messages ${JSON.stringify(client.seen.messages)}`,
  });
  return pusherErrors(client);
}

describeServer('client events', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('reach the other subscriber on a private channel, never the sender', async ({ server }) => {
    const name = uniqueName('private-chat');
    const [sender, receiver] = await pair(ctx, name);
    sender.trigger('client-typing', { text: 'héllo ✓', n: 1 });
    assert.deepEqual(await waitEvents(receiver, 'client-typing'), [{ text: 'héllo ✓', n: 1 }]);
    await marker(sdk(server), name, [sender]);
    assert.deepEqual(received(sender, 'client-typing'), [], 'client events are not echoed');
    assert.deepEqual(pusherErrors(sender.pusher), []);
  });

  test('carry user_id on presence channels', async ({ server, clients }) => {
    const name = uniqueName('presence-chat');
    const [sender, receiver] = await pair(ctx, name);
    const meta = [];
    receiver.bind('client-wave', (data, metadata) => meta.push({ data, metadata }));
    const raw = await clients.raw();
    await rawAuthorized(server, raw, name, { user_id: 'watcher' });
    sender.trigger('client-wave', { hi: 1 });
    await waitFor(() => meta.length === 1, { what: 'client-wave at the receiver' });
    assert.deepEqual(meta[0], { data: { hi: 1 }, metadata: { user_id: 'sender' } });
    const frame = await raw.next('client-wave');
    assert.equal(frame.user_id, 'sender', frame.text);
    assert.equal(frame.channel, name);
  });

  test(`more than 10 in a second -> pusher:error ${RATE_LIMIT}, connection kept`, async ({ server }) => {
    const name = uniqueName('private-burst');
    const [sender, receiver] = await pair(ctx, name);
    const socketId = sender.pusher.connection.socket_id;
    for (let i = 0; i < BURST; i++) sender.trigger('client-burst', { i });
    const limited = () => pusherErrors(sender.pusher).filter((e) => e.code === RATE_LIMIT).length;
    await waitFor(() => received(receiver, 'client-burst').length + limited() === BURST, {
      what: `each of ${BURST} events delivered or refused with ${RATE_LIMIT}; ` +
        `delivered ${received(receiver, 'client-burst').length}, errors ${JSON.stringify(pusherErrors(sender.pusher))}`,
    });
    assert.ok(limited() >= 1, 'a burst of 30 must hit the limit');
    assert.ok(received(receiver, 'client-burst').length >= 10, 'the first 10 of a second are delivered');
    assert.equal(sender.pusher.connection.state, 'connected');
    assert.equal(sender.pusher.connection.socket_id, socketId);
    await waitFor(() => {
      if (received(receiver, 'client-later').length > 0) return true;
      sender.trigger('client-later', {});
      return false;
    }, { interval: 250, what: 'a client event once the rate window has passed' });
    await marker(sdk(server), name, [sender]);
  });

  test('an app without client_events -> pusher:error, nothing relayed', async ({ server }, t) => {
    const app = { appId: QUIET.id, key: QUIET.key, secret: QUIET.secret };
    const auth = await startAuthEndpoint(server, { app });
    t.after(() => auth.close());
    const client = (params) => ctx.clients.pusherJS({ key: QUIET.key, pusher: auth.pusherOptions(params) });
    const name = uniqueName('private-quiet');
    const sender = await subscribe(await client({ user_id: 's' }), name);
    const receiver = await subscribe(await client({ user_id: 'r' }), name);
    sender.trigger('client-nope', { x: 1 });
    await waitError(sender.pusher);
    await marker(sdk(server, app), name, [receiver]);
    assert.deepEqual(received(receiver, 'client-nope'), []);
    assert.equal(sender.pusher.connection.state, 'connected');
  });

  test('on a public channel -> pusher:error, nothing relayed', async ({ server }) => {
    const name = uniqueName('public-chat');
    const [sender, receiver] = await pair(ctx, name);
    sender.trigger('client-public', { x: 1 });
    await waitError(sender.pusher);
    await marker(sdk(server), name, [receiver, sender]);
    assert.deepEqual(received(receiver, 'client-public'), []);
    assert.equal(sender.pusher.connection.state, 'connected');
  });

  test('on a channel the sender has not joined -> pusher:error, nothing relayed', async ({ server, clients }) => {
    const name = uniqueName('private-elsewhere');
    const receiver = await subscribe(await authedClient(ctx, { user_id: 'r' }), name);
    const raw = await clients.raw();
    raw.send({ event: 'client-sneak', channel: name, data: { x: 1 } });
    await raw.next('pusher:error');
    await marker(sdk(server), name, [receiver]);
    assert.deepEqual(received(receiver, 'client-sneak'), []);
    assert.ok(raw.isOpen, raw.closeText());
  });

  test('a raw client event with string data arrives as that string', async ({ server, clients }) => {
    const name = uniqueName('private-raw');
    const receiver = await subscribe(await authedClient(ctx, { user_id: 'r' }), name);
    const raw = await clients.raw();
    const reply = await rawSubscribe(raw, name, sdk(server).authorizeChannel(raw.socketId, name).auth);
    assert.equal(reply.event, 'pusher_internal:subscription_succeeded', reply.text);
    raw.send({ event: 'client-text', channel: name, data: 'plain text' });
    assert.deepEqual(await waitEvents(receiver, 'client-text'), ['plain text']);
  });
});
