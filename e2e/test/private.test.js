'use strict';
// Private channels (docs/protocol.md "Channels", Pusher docs "Authorizing
// users"): pusher-js asks a local auth endpoint that signs with the `pusher`
// SDK's authorizeChannel, both through channelAuthorization and through the
// older `authorizer` option; a wrong or missing signature gets
// pusher:subscription_error {type: AuthError, status: 401} while the connection
// and its other subscriptions stay up, and the expected signature is never
// revealed.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const {
  useAuthEndpoint, authedClient, subscribeFails, waitEvents, marker, rawSubscribe,
} = require('../lib/features');
const { CHANNEL_PATH } = require('../lib/backend');

// expectAuthError checks a subscription_error's data as docs/protocol.md
// ("Channels") gives it.
function expectAuthError(data) {
  assert.equal(data.type, 'AuthError', JSON.stringify(data));
  assert.equal(data.status, 401, JSON.stringify(data));
  assert.equal(typeof data.error, 'string', JSON.stringify(data));
}

// deprecatedAuthorizer is the pusher-js `authorizer` option that apps written
// for pusher-js 7 pass: it posts to the endpoint itself.
function deprecatedAuthorizer(url) {
  return (channel) => ({
    authorize(socketId, callback) {
      const body = new URLSearchParams({ socket_id: socketId, channel_name: channel.name });
      fetch(url, { method: 'POST', body })
        .then((res) => res.json().then((data) => callback(res.ok ? null : new Error(data.error), data)))
        .catch((err) => callback(err, null));
    },
  });
}

describeServer('private channels', {}, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('channelAuthorization endpoint signs, subscription succeeds, events arrive', async () => {
    const name = uniqueName('private-orders');
    const client = await authedClient(ctx, {});
    const ch = await subscribe(client, name);
    const asked = ctx.auth.requestsFor(name);
    assert.equal(asked.length, 1, 'pusher-js asks the endpoint once per subscription');
    assert.equal(asked[0].params.socket_id, client.connection.socket_id);
    const res = await sdk(ctx.server).trigger(name, 'shipped', { id: 7 });
    assert.equal(res.status, 200);
    assert.deepEqual(await waitEvents(ch, 'shipped'), [{ id: 7 }]);
  });

  test('the deprecated `authorizer` option works too', async () => {
    const name = uniqueName('private-legacy');
    const client = await ctx.clients.pusherJS({
      pusher: { authEndpoint: ctx.auth.url + CHANNEL_PATH, authorizer: deprecatedAuthorizer(ctx.auth.url + CHANNEL_PATH) },
    });
    const ch = await subscribe(client, name);
    await sdk(ctx.server).trigger(name, 'hello', 'legacy');
    assert.deepEqual(await waitEvents(ch, 'hello'), ['legacy']);
  });

  test('wrong signature -> subscription_error 401; the connection and its public channel survive', async () => {
    const pub = uniqueName('public-news');
    const priv = uniqueName('private-secret');
    const client = await authedClient(ctx, { forge: '1' });
    const socketId = client.connection.socket_id;
    const news = await subscribe(client, pub);
    const failed = await subscribeFails(client, priv);
    expectAuthError(failed.failures[0]);
    assert.equal(failed.subscribed, false);
    const api = sdk(ctx.server);
    await api.trigger(priv, 'leak', 'must not arrive');
    assert.equal((await api.trigger(pub, 'after-error', { ok: true })).status, 200);
    assert.deepEqual(await waitEvents(news, 'after-error'), [{ ok: true }]);
    assert.equal(client.connection.state, 'connected');
    assert.equal(client.connection.socket_id, socketId, 'the connection must not have been replaced');
    assert.deepEqual(received(failed, 'leak'), [], 'an unauthorized channel must receive nothing');
  });

  test('a channel subscribed after the failure works on the same connection', async () => {
    const client = await authedClient(ctx, { forge: '1' });
    await subscribeFails(client, uniqueName('private-bad'));
    const pub = await subscribe(client, uniqueName('public-later'));
    await sdk(ctx.server).trigger(pub.name, 'later', 1);
    assert.deepEqual(await waitEvents(pub, 'later'), [1]);
  });

  test('the error never reveals the expected signature (raw frames)', async ({ server, clients }) => {
    const raw = await clients.raw();
    const name = uniqueName('private-hidden');
    const expected = sdk(server).authorizeChannel(raw.socketId, name).auth.split(':')[1];
    const reply = await rawSubscribe(raw, name, `${server.key}:${'0'.repeat(64)}`);
    assert.equal(reply.event, 'pusher:subscription_error', reply.text);
    expectAuthError(reply.payload);
    for (const f of raw.frames) assert.ok(!f.text.includes(expected), `frame reveals the signature: ${f.text}`);
  });

  test('missing or misdirected signatures -> 401 each, connection kept', async ({ server, clients }) => {
    const raw = await clients.raw();
    const api = sdk(server);
    const sig = (socketId, channel) => api.authorizeChannel(socketId, channel).auth;
    const cases = [
      ['no auth', () => ''],
      ['signed for another socket', (name) => sig('1234.5678', name)],
      ['signed for another channel', () => sig(raw.socketId, 'private-other')],
      ['another key', (name) => `not-the-key:${sig(raw.socketId, name).split(':')[1]}`],
      ['no key', (name) => sig(raw.socketId, name).split(':')[1]],
    ];
    for (const [what, auth] of cases) {
      const name = uniqueName('private-case');
      const reply = await rawSubscribe(raw, name, auth(name));
      assert.equal(reply.event, 'pusher:subscription_error', `${what}: ${reply.text}`);
      expectAuthError(reply.payload);
    }
    const ok = uniqueName('private-ok');
    const reply = await rawSubscribe(raw, ok, api.authorizeChannel(raw.socketId, ok).auth);
    assert.equal(reply.event, 'pusher_internal:subscription_succeeded', reply.text);
    assert.ok(raw.isOpen, raw.closeText());
  });

  test('a failed subscriber does not receive what the authorized one does', async () => {
    const name = uniqueName('private-pair');
    const good = await subscribe(await authedClient(ctx, {}), name);
    const bad = await subscribeFails(await authedClient(ctx, { forge: '1' }), name);
    await marker(sdk(ctx.server), name, [good]);
    assert.deepEqual(bad.received.filter((r) => !r.event.startsWith('pusher:')), []);
  });
});
