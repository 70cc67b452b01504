'use strict';
// Subscription counts (docs/protocol.md "Subscription counts", Pusher docs
// "Subscription count"): for apps with subscription_count: true, every
// subscriber of a non-presence channel gets pusher_internal:subscription_count
// {subscription_count: n} when the count changes, which pusher-js emits as
// pusher:subscription_count and keeps in channel.subscriptionCount. Never on
// presence channels, never for apps that did not opt in.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { useAuthEndpoint, authedClient, marker } = require('../lib/features');

const PLAIN = { id: 'plain', key: 'key-plain', secret: 'secret-plain' };
const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', subscription_count: true }, PLAIN];
const COUNT = 'pusher:subscription_count';

// countsAt lists the subscription counts channel was told, in order.
function countsAt(channel) {
  return received(channel, COUNT).map((d) => d.subscription_count);
}

// waitCount waits until the latest count channel was told is n.
function waitCount(channel, n) {
  return waitFor(() => {
    const all = countsAt(channel);
    return all.length > 0 && all[all.length - 1] === n;
  }, { what: `${COUNT} ${n} on ${channel.name}; got ${JSON.stringify(countsAt(channel))}` });
}

describeServer('subscription_count', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('counts follow subscribes and unsubscribes on a public channel', async () => {
    const name = uniqueName('counted');
    const a = await subscribe(await authedClient(ctx, {}), name);
    await waitCount(a, 1);
    const b = await subscribe(await authedClient(ctx, {}), name);
    await waitCount(a, 2);
    await waitCount(b, 2);
    assert.equal(a.subscriptionCount, 2, 'pusher-js keeps the latest count');
    const c = await subscribe(await authedClient(ctx, {}), name);
    await waitCount(a, 3);
    c.pusher.unsubscribe(name);
    await waitCount(a, 2);
    await waitCount(b, 2);
    b.pusher.disconnect();
    await waitCount(a, 1);
    assert.equal(a.subscriptionCount, 1);
  });

  test('private channels are counted too', async () => {
    const name = uniqueName('private-counted');
    const a = await subscribe(await authedClient(ctx, {}), name);
    await subscribe(await authedClient(ctx, {}), name);
    await waitCount(a, 2);
  });

  test('raw frame shape', async ({ clients }) => {
    const name = uniqueName('counted-raw');
    const raw = await clients.raw();
    raw.send({ event: 'pusher:subscribe', data: { channel: name, auth: '' } });
    const other = await clients.raw();
    other.send({ event: 'pusher:subscribe', data: { channel: name, auth: '' } });
    const frame = await raw.next((f) => f.event === 'pusher_internal:subscription_count' &&
      f.payload && f.payload.subscription_count === 2);
    assert.equal(frame.channel, name);
    assert.equal(typeof frame.data, 'string', 'data is a JSON-encoded string');
    assert.deepEqual(frame.payload, { subscription_count: 2 });
  });

  test('never on presence channels', async ({ server }) => {
    const name = uniqueName('presence-uncounted');
    const a = await subscribe(await authedClient(ctx, { user_id: 'a' }), name);
    const b = await subscribe(await authedClient(ctx, { user_id: 'b' }), name);
    await marker(sdk(server), name, [a, b]);
    assert.deepEqual(countsAt(a), []);
    assert.deepEqual(countsAt(b), []);
  });

  test('never for an app without subscription_count', async ({ server }) => {
    const name = uniqueName('uncounted');
    const open = () => ctx.clients.pusherJS({ key: PLAIN.key });
    const a = await subscribe(await open(), name);
    const b = await subscribe(await open(), name);
    await marker(sdk(server, { appId: PLAIN.id, key: PLAIN.key, secret: PLAIN.secret }), name, [a, b]);
    assert.deepEqual(countsAt(a), []);
    assert.deepEqual(countsAt(b), []);
  });
});
