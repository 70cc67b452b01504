'use strict';
// Encrypted channels (docs/protocol.md "Channels", Pusher docs "End-to-end
// encrypted channels"): the `pusher` SDK with encryptionMasterKeyBase64
// encrypts on trigger, the auth endpoint hands pusher-js the channel's
// shared_secret, and pusher-js' with-encryption build decrypts. roost only
// authorizes like a private channel and relays {nonce, ciphertext} untouched;
// it refuses client events there.
//
// `require('pusher-js/with-encryption')` loads the browser bundle, which dies
// on Node with "self is not defined"; the Node entry of pusher-js 8.6.0 is
// itself built from src/core/pusher-with-encryption (webpack/config.node.js),
// so the suite uses it and asserts that it carries nacl.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const {
  useAuthEndpoint, authedClient, waitEvents, marker, pusherErrors, rawAuthorized,
} = require('../lib/features');
const { waitFor } = require('../lib/poll');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const SECRET_TEXT = 'the launch code is 0000 — ✓ 日本';

describeServer('encrypted channels', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  // encryptingSDK triggers with the endpoint's master key.
  const encryptingSDK = () => sdk(ctx.server, { encryptionMasterKeyBase64: ctx.auth.masterKey });

  test('the client is pusher-js\' with-encryption build', async () => {
    const client = await authedClient(ctx, {});
    assert.ok(client.config.nacl && client.config.nacl.secretbox, 'pusher-js was built without tweetnacl');
  });

  test('SDK trigger encrypts, the pusher-js subscriber decrypts', async () => {
    const name = uniqueName('private-encrypted-vault');
    const ch = await subscribe(await authedClient(ctx, {}), name);
    const res = await encryptingSDK().trigger(name, 'secret', { text: SECRET_TEXT, n: 3 });
    assert.equal(res.status, 200);
    assert.deepEqual(await waitEvents(ch, 'secret'), [{ text: SECRET_TEXT, n: 3 }]);
    assert.equal(ctx.auth.requestsFor(name).length, 1, 'the key came from one auth request');
  });

  test('roost relays {nonce, ciphertext} untouched and never sees plaintext', async ({ server, clients }) => {
    const name = uniqueName('private-encrypted-relay');
    const raw = await clients.raw();
    const reply = await rawAuthorized(server, raw, name, undefined, { encryptionMasterKeyBase64: ctx.auth.masterKey });
    assert.equal(reply.event, 'pusher_internal:subscription_succeeded', reply.text);
    const decrypting = await subscribe(await authedClient(ctx, {}), name);
    await encryptingSDK().trigger(name, 'secret', { text: SECRET_TEXT });
    const frame = await raw.next('secret');
    assert.equal(typeof frame.data, 'string', 'data stays a JSON-encoded string');
    assert.deepEqual(Object.keys(frame.payload).sort(), ['ciphertext', 'nonce'], frame.text);
    assert.equal(Buffer.from(frame.payload.nonce, 'base64').length, 24);
    assert.ok(!frame.text.includes('launch code'), 'plaintext on the wire');
    assert.deepEqual(await waitEvents(decrypting, 'secret'), [{ text: SECRET_TEXT }]);
  });

  test('wrong signature on an encrypted channel -> subscription_error 401', async () => {
    const client = await authedClient(ctx, { forge: '1' });
    const ch = client.subscribe(uniqueName('private-encrypted-forged'));
    const failures = [];
    ch.bind('pusher:subscription_error', (e) => failures.push(e));
    await waitFor(() => failures.length > 0 || ch.subscribed, { what: 'subscription_error' });
    assert.equal(ch.subscribed, false);
    assert.equal(failures[0].status, 401, JSON.stringify(failures));
  });

  test('client events on an encrypted channel -> pusher:error, nothing relayed', async ({ server, clients }) => {
    const name = uniqueName('private-encrypted-chat');
    const listener = await subscribe(await authedClient(ctx, {}), name);
    const raw = await clients.raw();
    await rawAuthorized(server, raw, name, undefined, { encryptionMasterKeyBase64: ctx.auth.masterKey });
    raw.send({ event: 'client-leak', channel: name, data: { nonce: 'AAAA', ciphertext: 'AAAA' } });
    await raw.next('pusher:error');
    await marker(encryptingSDK(), name, [listener]);
    assert.deepEqual(received(listener, 'client-leak'), []);
    assert.ok(raw.isOpen, raw.closeText());
    assert.deepEqual(pusherErrors(listener.pusher), []);
  });
});
