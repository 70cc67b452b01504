'use strict';
// Connecting, subscribing and the protocol's housekeeping messages
// (docs/protocol.md "The endpoint" and "Channels"), with pusher-js where it
// can show the behaviour and a raw client where exact frames matter.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const tls = require('../lib/tls');

const SOCKET_ID_RE = /^\d+\.\d+$/;

describeServer('connect', {}, (test) => {
  test('GET /up answers 200', async ({ server }) => {
    const res = await fetch(`${server.url}/up`);
    await res.arrayBuffer();
    assert.equal(res.status, 200);
  });

  test('the run\'s scheme is served: wss:// under npm run test:tls, ws:// otherwise',
    async ({ server, clients }) => {
      assert.equal(server.url.startsWith('https://'), tls.enabled(), server.url);
      const raw = await clients.raw();
      assert.equal(Boolean(raw.ws._socket.encrypted), tls.enabled(), 'the WebSocket runs over TLS');
      const c = await clients.pusherJS();
      assert.equal(c.connection.state, 'connected');
    });

  test('pusher-js connects and gets a numeric socket_id', async ({ clients }) => {
    const c = await clients.pusherJS();
    assert.equal(c.connection.state, 'connected');
    assert.match(c.connection.socket_id, SOCKET_ID_RE);
  });

  test('connection_established carries double-encoded socket_id and activity_timeout',
    async ({ clients }) => {
      const raw = await clients.raw();
      const est = raw.find('pusher:connection_established');
      assert.equal(raw.frames[0], est, `first frame must be connection_established: ${raw.describe()}`);
      assert.equal(typeof est.data, 'string', `data must be a JSON string: ${est.text}`);
      assert.match(est.payload.socket_id, SOCKET_ID_RE);
      assert.ok(est.payload.activity_timeout > 0, `activity_timeout > 0: ${est.text}`);
    });

  test('two connections get different socket_ids', async ({ clients }) => {
    const [a, b] = await Promise.all([clients.pusherJS(), clients.pusherJS()]);
    assert.notEqual(a.connection.socket_id, b.connection.socket_id);
  });

  test('pusher-js subscribes to a public channel', async ({ clients }) => {
    const c = await clients.pusherJS();
    const ch = await subscribe(c, uniqueName('public'));
    assert.equal(ch.subscribed, true);
    assert.ok(ch.received.some((r) => r.event === 'pusher:subscription_succeeded'));
  });

  test('raw subscribe gets pusher_internal:subscription_succeeded for that channel',
    async ({ clients }) => {
      const raw = await clients.raw();
      const name = uniqueName('public');
      raw.send({ event: 'pusher:subscribe', data: { auth: '', channel: name } });
      const ok = await raw.next('pusher_internal:subscription_succeeded');
      assert.equal(ok.channel, name);
    });

  test('pusher:ping gets pusher:pong', async ({ clients }) => {
    const raw = await clients.raw();
    raw.send({ event: 'pusher:ping', data: {} });
    const pong = await raw.next('pusher:pong');
    assert.equal(pong.event, 'pusher:pong');
    assert.ok(raw.isOpen, raw.closeText());
  });

  test('a WebSocket ping frame gets a pong frame (RFC 6455 5.5.2)', async ({ clients }) => {
    const raw = await clients.raw();
    raw.ws.ping(Buffer.from('roost'));
    await waitFor(() => raw.pongs > 0, { what: `pong frame; ${raw.closeText()}` });
    assert.ok(raw.isOpen, raw.closeText());
  });

  test('malformed JSON gets pusher:error and the connection stays up', async ({ clients }) => {
    const raw = await clients.raw();
    raw.send('{"event":"pusher:subscribe","data":');
    const err = await raw.next('pusher:error');
    assert.ok(err.payload && typeof err.payload === 'object', `error data: ${err.text}`);
    const name = uniqueName('public');
    raw.send({ event: 'pusher:subscribe', data: { auth: '', channel: name } });
    const ok = await raw.next((f) => f.event === 'pusher_internal:subscription_succeeded');
    assert.equal(ok.channel, name);
    assert.ok(raw.isOpen, raw.closeText());
  });

  const invalidNames = [
    ['a space and a bang', 'bad channel!'],
    ['a character outside A-Za-z0-9_-=@,.;', 'bad/channel'],
    ['201 characters', 'x'.repeat(201)],
    ['the reserved # prefix', '#server-to-user-1'],
  ];
  for (const [why, name] of invalidNames) {
    test(`channel name with ${why} is refused and the connection stays up`, async ({ clients }) => {
      const raw = await clients.raw();
      raw.send({ event: 'pusher:subscribe', data: { auth: '', channel: name } });
      const refusal = await raw.next((f) =>
        (f.event === 'pusher:subscription_error' && f.channel === name) || f.event === 'pusher:error'
        || (f.event === 'pusher_internal:subscription_succeeded' && f.channel === name));
      assert.notEqual(refusal.event, 'pusher_internal:subscription_succeeded',
        `invalid name ${JSON.stringify(name)} was accepted: ${refusal.text}`);
      const good = uniqueName('public');
      raw.send({ event: 'pusher:subscribe', data: { auth: '', channel: good } });
      await raw.next((f) => f.event === 'pusher_internal:subscription_succeeded' && f.channel === good);
      assert.ok(raw.isOpen, raw.closeText());
    });
  }

  test('a 200-character channel name is accepted', async ({ clients }) => {
    const raw = await clients.raw();
    const name = `ok-${'y'.repeat(197)}`;
    raw.send({ event: 'pusher:subscribe', data: { auth: '', channel: name } });
    const ok = await raw.next((f) => f.channel === name);
    assert.equal(ok.event, 'pusher_internal:subscription_succeeded', ok.text);
  });
});
