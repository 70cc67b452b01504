'use strict';
// Server-side liveness (docs/protocol.md "Keeping the connection alive"): with
// activity_timeout 1s and pong_wait 1s, roost pings a silent client and closes
// it with 4201 when no answer comes, while clients that answer (pusher-js, a
// raw client replying pusher:pong) stay connected. A silent client's 4201 is
// the clock: the "stays connected" checks are made after it, never after a
// fixed sleep.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');

const CLOSE_WAIT_MS = 20000;

// silentRound opens a client that never answers (not even WebSocket pings),
// and waits until roost pinged it and closed it; returns its frames and close.
async function silentRound(clients) {
  const raw = await clients.raw({ autoPong: false });
  const close = await raw.waitClosed(CLOSE_WAIT_MS);
  return { raw, close };
}

describeServer('ping', { activityTimeout: '1s', pongWait: '1s' }, (test) => {
  test('connection_established announces activity_timeout 1', async ({ clients }) => {
    const raw = await clients.raw();
    assert.equal(raw.find('pusher:connection_established').payload.activity_timeout, 1);
  });

  test('a silent client gets pusher:ping, then close 4201', async ({ clients }) => {
    const { raw, close } = await silentRound(clients);
    const ping = raw.frames.findIndex((f) => f.event === 'pusher:ping');
    assert.ok(ping > 0, `expected pusher:ping before the close; frames ${raw.describe()}, ` +
      `close ${close.code} "${close.reason}"`);
    assert.equal(close.code, 4201, `close reason "${close.reason}"; frames ${raw.describe()}`);
  });

  test('a raw client answering pusher:ping outlives two silent ones', async ({ clients }) => {
    const live = (await clients.raw()).answerPings();
    for (let i = 0; i < 2; i++) assert.equal((await silentRound(clients)).close.code, 4201);
    assert.ok(live.find('pusher:ping'), `the answering client was never pinged: ${live.describe()}`);
    assert.ok(live.isOpen, live.closeText());
    live.send({ event: 'pusher:ping', data: {} });
    await live.next('pusher:pong');
  });

  test('pusher-js keeps its connection and still receives events', async ({ server, clients }) => {
    const c = await clients.pusherJS();
    const id = c.connection.socket_id;
    const ch = await subscribe(c, uniqueName('alive'));
    for (let i = 0; i < 2; i++) assert.equal((await silentRound(clients)).close.code, 4201);
    assert.equal(c.connection.state, 'connected');
    assert.equal(c.connection.socket_id, id, `pusher-js reconnected; states ${JSON.stringify(c.seen.states)}`);
    assert.deepEqual(c.seen.states.filter((s) => s !== 'connecting'), ['connected'],
      `errors ${JSON.stringify(c.seen.errors)}`);
    await sdk(server).trigger(ch.name, 'still-here', { ok: true });
    await waitFor(() => received(ch, 'still-here').length === 1, { what: 'event after the silent rounds' });
  });
});
