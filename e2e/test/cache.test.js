'use strict';
// Cache channels (docs/protocol.md "Cache channels", Pusher docs "Cache
// channels"): cache-, private-cache-, private-encrypted-cache- and
// presence-cache- channels keep the last published event and send it right
// after subscription_succeeded; with nothing cached the subscriber gets
// pusher:cache_miss. Client events are never cached.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const {
  useAuthEndpoint, authedClient, waitEvents, marker, appEvents, rawAuthorized, rawSubscribe,
} = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const SUCCEEDED = 'pusher_internal:subscription_succeeded';

// names lists the events a pusher-js channel received, in order.
function names(channel) {
  return channel.received.map((r) => r.event);
}

// afterSucceeded waits for the raw frame that follows subscription_succeeded
// on name and returns it.
async function afterSucceeded(raw, name) {
  const isSucceeded = (f) => f.event === SUCCEEDED && f.channel === name;
  await raw.next(isSucceeded);
  const at = raw.frames.findIndex(isSucceeded);
  await waitFor(() => raw.frames.length > at + 1, { what: `a frame after ${SUCCEEDED}: ${raw.describe()}` });
  return raw.frames[at + 1];
}

describeServer('cache channels', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('empty cache -> pusher:cache_miss right after subscription_succeeded', async ({ clients }) => {
    const name = uniqueName('cache-prices');
    const ch = await subscribe(await authedClient(ctx, {}), name);
    await waitEvents(ch, 'pusher:cache_miss');
    assert.deepEqual(names(ch), ['pusher:subscription_succeeded', 'pusher:cache_miss']);
    const raw = await clients.raw();
    await rawSubscribe(raw, name);
    const next = await afterSucceeded(raw, name);
    assert.equal(next.event, 'pusher:cache_miss', raw.describe());
    assert.equal(next.channel, name);
  });

  test('cache miss, trigger, then a new subscriber gets the cached event first', async ({ server, clients }) => {
    const name = uniqueName('cache-ticker');
    const first = await subscribe(await authedClient(ctx, {}), name);
    await waitEvents(first, 'pusher:cache_miss');
    const api = sdk(server);
    assert.equal((await api.trigger(name, 'price', { usd: 101.5 })).status, 200);
    await waitEvents(first, 'price');

    const second = await subscribe(await authedClient(ctx, {}), name);
    assert.deepEqual(await waitEvents(second, 'price'), [{ usd: 101.5 }]);
    assert.deepEqual(names(second), ['pusher:subscription_succeeded', 'price'], 'cached event right after succeeded');
    const raw = await clients.raw();
    await rawSubscribe(raw, name);
    const next = await afterSucceeded(raw, name);
    assert.equal(next.event, 'price', raw.describe());
    assert.equal(next.channel, name);
    assert.deepEqual(next.payload, { usd: 101.5 });

    await marker(api, name, [second]); // replaces the cached event from here on
    assert.deepEqual(received(second, 'pusher:cache_miss'), []);
    assert.equal(received(first, 'price').length, 1, 'an old subscriber does not get the cached event again');
  });

  test('only the last event is kept, also while nobody is subscribed', async ({ server }) => {
    const name = uniqueName('cache-empty-room');
    const api = sdk(server);
    await api.trigger(name, 'first', { n: 1 });
    await api.trigger(name, 'second', { n: 2 });
    const ch = await subscribe(await authedClient(ctx, {}), name);
    assert.deepEqual(await waitEvents(ch, 'second'), [{ n: 2 }]);
    const mark = await marker(api, name, [ch]);
    assert.deepEqual(appEvents(ch), ['second', mark]);
  });

  test('client events are never cached (private-cache-)', async ({ server }) => {
    const name = uniqueName('private-cache-board');
    const api = sdk(server);
    const sender = await subscribe(await authedClient(ctx, { user_id: 's' }), name);
    await waitEvents(sender, 'pusher:cache_miss');
    await api.trigger(name, 'from-server', { n: 1 });
    await waitEvents(sender, 'from-server');
    const peer = await subscribe(await authedClient(ctx, { user_id: 'p' }), name);
    sender.trigger('client-scribble', { n: 2 });
    await waitEvents(peer, 'client-scribble');
    const late = await subscribe(await authedClient(ctx, { user_id: 'l' }), name);
    assert.deepEqual(await waitEvents(late, 'from-server'), [{ n: 1 }]);
    await marker(api, name, [late]);
    assert.deepEqual(received(late, 'client-scribble'), [], 'a client event must not replace the cache');
  });

  test('a private-cache- channel with only client events -> cache_miss', async () => {
    const name = uniqueName('private-cache-chatter');
    const sender = await subscribe(await authedClient(ctx, { user_id: 's' }), name);
    const peer = await subscribe(await authedClient(ctx, { user_id: 'p' }), name);
    sender.trigger('client-hi', {});
    await waitEvents(peer, 'client-hi');
    const late = await subscribe(await authedClient(ctx, { user_id: 'l' }), name);
    await waitEvents(late, 'pusher:cache_miss');
    assert.deepEqual(names(late), ['pusher:subscription_succeeded', 'pusher:cache_miss']);
  });

  test('presence-cache-: miss, then the cached event after succeeded', async ({ server }) => {
    const name = uniqueName('presence-cache-lobby');
    const a = await subscribe(await authedClient(ctx, { user_id: 'a' }), name);
    await waitEvents(a, 'pusher:cache_miss');
    await sdk(server).trigger(name, 'topic', 'cached topic');
    const b = await subscribe(await authedClient(ctx, { user_id: 'b' }), name);
    assert.deepEqual(await waitEvents(b, 'topic'), ['cached topic']);
    assert.equal(b.members.count, 2);
    assert.deepEqual(received(b, 'pusher:cache_miss'), []);
  });

  test('private-encrypted-cache-: the cached ciphertext decrypts at a new subscriber', async ({ server, clients }) => {
    const name = uniqueName('private-encrypted-cache-safe');
    const api = sdk(server, { encryptionMasterKeyBase64: ctx.auth.masterKey });
    const first = await subscribe(await authedClient(ctx, {}), name);
    await waitEvents(first, 'pusher:cache_miss');
    await api.trigger(name, 'combo', { digits: [4, 2] });
    const later = await subscribe(await authedClient(ctx, {}), name);
    assert.deepEqual(await waitEvents(later, 'combo'), [{ digits: [4, 2] }]);
    const raw = await clients.raw();
    await rawAuthorized(server, raw, name, undefined, { encryptionMasterKeyBase64: ctx.auth.masterKey });
    const next = await afterSucceeded(raw, name);
    assert.deepEqual(Object.keys(next.payload).sort(), ['ciphertext', 'nonce'], next.text);
  });

  test('a plain (non-cache) channel gets no cache_miss and no replay', async ({ server }) => {
    const name = uniqueName('plain');
    const api = sdk(server);
    await api.trigger(name, 'old', {});
    const ch = await subscribe(await authedClient(ctx, {}), name);
    const mark = await marker(api, name, [ch]);
    assert.deepEqual(names(ch), ['pusher:subscription_succeeded', mark]);
  });
});
