'use strict';
// pusher-js's HTTP fallbacks (docs/fallbacks.md): its Node build with
// enabledTransports ['xhr_streaming'] and then ['xhr_polling'], httpHost and
// httpPort pointing at roost, carries every feature a WebSocket does: public,
// private, presence and encrypted channels, client events both ways with a
// WebSocket client, sign-in and sendToUser, API publishes, terminate, a
// refusal in Pusher's terms, and Laravel Echo configured as the docs say. Over TLS (npm run test:tls) it uses httpsPort.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk, errorCode } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const PusherJS = require('pusher-js');
const {
  useAuthEndpoint, authedClient, waitEvents, marker, pusherErrors, signIn, loadEcho,
} = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const FALLBACKS = ['xhr_streaming', 'xhr_polling'];

// over returns the pusher-js options that make a client use only the
// fallback transport named by transport against server.
function over(server, transport) {
  return {
    httpHost: server.host, httpPort: server.port, httpsPort: server.port,
    enabledTransports: [transport],
  };
}

// transportOf names the transport a connected pusher-js client uses.
function transportOf(client) {
  return client.connection.connection.transport.name;
}

describeServer('http fallbacks', { apps: APPS }, (test, ctx) => {
  useAuthEndpoint(ctx);

  // fallback opens a pusher-js client over transport, authorized by ctx.auth.
  const fallback = async (transport, params = {}) => {
    const client = await authedClient(ctx, params, { pusher: over(ctx.server, transport) });
    assert.equal(transportOf(client), transport);
    return client;
  };

  for (const tr of FALLBACKS) {
    test(`${tr}: connects, subscribes and receives API publishes in order`, async ({ server }) => {
      const client = await fallback(tr);
      assert.match(client.connection.socket_id, /^\d+\.\d+$/);
      const name = uniqueName('public-news');
      const ch = await subscribe(client, name);
      const api = sdk(server);
      for (let n = 1; n <= 5; n += 1) await api.trigger(name, 'story', { n, text: 'é ✓ "quoted"\n' });
      assert.deepEqual((await waitEvents(ch, 'story', 5)).map((d) => d.n), [1, 2, 3, 4, 5]);
      assert.equal(received(ch, 'story')[0].text, 'é ✓ "quoted"\n');
    });

    test(`${tr}: private and encrypted channels`, async ({ server }) => {
      const client = await fallback(tr);
      const priv = await subscribe(client, uniqueName('private-orders'));
      await sdk(server).trigger(priv.name, 'shipped', { id: 7 });
      assert.deepEqual(await waitEvents(priv, 'shipped'), [{ id: 7 }]);
      const enc = await subscribe(client, uniqueName('private-encrypted-vault'));
      await sdk(server, { encryptionMasterKeyBase64: ctx.auth.masterKey }).trigger(enc.name, 'secret', { text: 'launch' });
      assert.deepEqual(await waitEvents(enc, 'secret'), [{ text: 'launch' }]);
    });

    test(`${tr}: presence members and client events with a WebSocket client`, async () => {
      const name = uniqueName('presence-room');
      const ws = await subscribe(await authedClient(ctx, { user_id: 'ws-user' }), name);
      const fb = await subscribe(await fallback(tr, { user_id: 'fb-user' }), name);
      assert.deepEqual(Object.keys(fb.members.members).sort(), ['fb-user', 'ws-user']);
      await waitFor(() => ws.members.count === 2, { what: 'member_added at the WebSocket client' });
      fb.trigger('client-typing', { from: 'fb' });
      ws.trigger('client-typing', { from: 'ws' });
      assert.deepEqual(await waitEvents(ws, 'client-typing'), [{ from: 'fb' }]);
      assert.deepEqual(await waitEvents(fb, 'client-typing'), [{ from: 'ws' }]);
      await marker(sdk(ctx.server), name, [fb, ws]);
      assert.equal(received(fb, 'client-typing').length, 1, 'a client event is not echoed to its sender');
    });

    test(`${tr}: sign-in, sendToUser, then terminate closes the session with 4009`, async ({ server }) => {
      const client = await fallback(tr, { user_id: `user-${tr}` });
      await signIn(client);
      const got = [];
      client.user.bind('notice', (d) => got.push(d));
      await sdk(server).sendToUser(`user-${tr}`, 'notice', { text: 'hi' });
      await waitFor(() => got.length === 1, { what: 'sendToUser over the fallback' });
      assert.equal((await sdk(server).terminateUserConnections(`user-${tr}`)).status, 200);
      await waitFor(() => pusherErrors(client).some((e) => e.code === 4009), {
        what: `pusher:error 4009 (states ${JSON.stringify(client.seen.states)})`,
      });
      await waitFor(() => client.connection.state !== 'connected', { what: 'the session ended' });
    });

    test(`${tr}: an unknown key is refused with 4001 and pusher-js gives up`, async ({ clients }) => {
      const client = clients.pusherJSUnwaited({ key: 'no-such-key', pusher: over(ctx.server, tr) });
      await waitFor(() => client.seen.errors.some((e) => errorCode(e) === 4001), {
        what: `error 4001 (errors ${JSON.stringify(client.seen.errors)})`,
      });
      await waitFor(() => client.connection.state === 'disconnected', { what: 'pusher-js gave up' });
      assert.ok(!client.seen.states.includes('connected'), JSON.stringify(client.seen.states));
    });
  }

  test('Laravel Echo configured as docs/fallbacks.md says joins presence and hears events over xhr_polling',
    async ({ server }) => {
      const Echo = await loadEcho();
      const echo = new Echo({
        broadcaster: 'pusher', key: server.key, cluster: 'roost', Pusher: PusherJS,
        wsHost: server.host, wsPort: server.port, wssPort: server.port,
        ...over(server, 'xhr_polling'), forceTLS: Boolean(server.tls), enableStats: false,
        ...ctx.auth.pusherOptions({ user_id: 'echo-user', user_info: JSON.stringify({ name: 'Echo' }) }),
      });
      try {
        const room = uniqueName('lobby');
        const here = [];
        const got = [];
        echo.join(room).here((members) => here.push(...members)).listen('.news', (d) => got.push(d));
        await waitFor(() => here.length === 1, { what: 'Echo here() over xhr_polling' });
        assert.equal(transportOf(echo.connector.pusher), 'xhr_polling');
        await sdk(server).trigger(`presence-${room}`, 'news', { n: 1 });
        await waitFor(() => got.length === 1, { what: 'an event at Echo' });
        assert.deepEqual(got, [{ n: 1 }]);
      } finally {
        echo.disconnect();
      }
    });

  // The rule is the fallback handler's, but who notices the stream's end is
  // not: an epoll loop holds the stream on epoll, net/http on portable.
  test('xhr_streaming: a client that disconnects leaves presence once its stream is gone', async () => {
    const name = uniqueName('presence-leave');
    const ws = await subscribe(await authedClient(ctx, { user_id: 'stays' }), name);
    const fbClient = await fallback('xhr_streaming', { user_id: 'leaves' });
    await subscribe(fbClient, name);
    await waitFor(() => ws.members.count === 2, { what: 'member_added' });
    fbClient.disconnect();
    // pusher-js aborts its stream and says nothing; roost ends a session
    // whose client holds no request for 10 s.
    await waitFor(() => ws.members.count === 1, { what: 'member_removed after the stream ended', timeout: 20000 });
  });
});
