'use strict';
// permessage-deflate (RFC 7692; docs/protocol.md "Compression"): an app with
// `compression: true` accepts the extension from a client that offers it,
// always without context takeover in either direction; events published to
// such a client arrive compressed, and its compressed messages are inflated.
// An app without it, or a client that does not offer it, gets plain frames.
//
// pusher-js's Node build opens its sockets with faye-websocket, which offers
// no extension; browsers offer permessage-deflate. So pusher-js runs here on
// Node's `ws` (which offers "permessage-deflate; client_max_window_bits", as
// Chromium does) through its runtime's WebSocket constructor: the Pusher
// protocol is pusher-js's, the compression is a real RFC 7692 client's.

const assert = require('node:assert/strict');
const { before } = require('node:test');
const WebSocket = require('ws');
const PusherJS = require('pusher-js');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, sdk } = require('../lib/clients');
const { useAuthEndpoint, authedClient, waitEvents, skipForAppsDB } = require('../lib/features');

const ACCEPTED = 'permessage-deflate; server_no_context_takeover; client_no_context_takeover';
const ZIPPED = { id: 'zipped', key: 'key-zipped', secret: 'secret-zipped', client_events: true, compression: true };
const PLAIN = { id: 'plain', key: 'key-plain', secret: 'secret-plain', client_events: true };

// Every socket pusher-js opens, with the extensions roost's 101 accepted.
const sockets = [];
class RecordingWebSocket extends WebSocket {
  constructor(url) {
    super(url); // ws offers permessage-deflate by default
    this.accepted = null;
    this.once('upgrade', (res) => { this.accepted = res.headers['sec-websocket-extensions'] || ''; });
    sockets.push(this);
  }
}
before(() => { PusherJS.Runtime.getWebSocketAPI = () => RecordingWebSocket; });

// client opens an authorized pusher-js client of app and returns it with its socket.
async function client(ctx, app, user) {
  const c = await authedClient(ctx, { user_id: user }, { key: app.key });
  const socket = sockets[sockets.length - 1];
  assert.notEqual(socket.accepted, null, 'the socket saw its 101 response');
  return { c, socket };
}

// bytesIn and bytesOut are what a socket moved on the wire, headers included.
const bytesIn = (s) => s._socket.bytesRead;
const bytesOut = (s) => s._socket.bytesWritten;

// A 4 KB event data that compresses well, as JSON lists of records do.
function bigData(tag) {
  const rows = [];
  for (let i = 0; JSON.stringify(rows).length < 4096; i++) rows.push({ id: i, status: 'shipped', tag });
  return { rows };
}

describeServer('compression on', { apps: [ZIPPED] }, (test, ctx) => {
  if (skipForAppsDB(test)) return;
  useAuthEndpoint(ctx);

  test('negotiated with pusher-js on ws; events flow both ways compressed', async ({ server }) => {
    const name = uniqueName('private-zip');
    const a = await client(ctx, ZIPPED, 'a');
    const b = await client(ctx, ZIPPED, 'b');
    for (const s of [a.socket, b.socket]) {
      assert.equal(s.accepted, ACCEPTED);
      assert.match(s.extensions, /permessage-deflate/);
    }
    const chA = await subscribe(a.c, name);
    const chB = await subscribe(b.c, name);

    const published = bigData('api');
    const inBefore = bytesIn(b.socket);
    await sdk(server).trigger(name, 'big', published);
    assert.deepEqual(await waitEvents(chB, 'big'), [published]);
    const wire = bytesIn(b.socket) - inBefore;
    assert.ok(wire < JSON.stringify(published).length / 2, `a ${JSON.stringify(published).length}-byte event took ${wire} bytes`);

    const sent = bigData('client'); // over ws's 1 KB threshold, so ws compresses it
    const outBefore = bytesOut(a.socket);
    a.c.channel(name).trigger('client-big', sent);
    assert.deepEqual(await waitEvents(chB, 'client-big'), [sent]);
    const up = bytesOut(a.socket) - outBefore;
    assert.ok(up < JSON.stringify(sent).length / 2, `a ${JSON.stringify(sent).length}-byte client event took ${up} bytes`);
    assert.equal(chA.received.filter((r) => r.event === 'client-big').length, 0);
  });

});

describeServer('compression off', { apps: [PLAIN] }, (test, ctx) => {
  if (skipForAppsDB(test)) return;
  useAuthEndpoint(ctx);

  test('not negotiated for an app without compression', async ({ server }) => {
    const name = uniqueName('private-plain');
    const a = await client(ctx, PLAIN, 'a');
    const b = await client(ctx, PLAIN, 'b');
    assert.equal(b.socket.accepted, '');
    assert.equal(b.socket.extensions, '');
    const chB = await subscribe(b.c, name);
    await subscribe(a.c, name);
    const published = bigData('api');
    const inBefore = bytesIn(b.socket);
    await sdk(server).trigger(name, 'big', published);
    assert.deepEqual(await waitEvents(chB, 'big'), [published]);
    assert.ok(bytesIn(b.socket) - inBefore > JSON.stringify(published).length, 'an uncompressed event');
    const sent = bigData('client');
    a.c.channel(name).trigger('client-big', sent);
    assert.deepEqual(await waitEvents(chB, 'client-big'), [sent]);
  });
});
