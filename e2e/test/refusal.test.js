'use strict';
// Connections roost must refuse (docs/protocol.md "Refusals"): an unknown app
// key gets pusher:error 4001 then close 4001, a disabled app 4003. pusher-js
// treats 4000-4099 as "give up", so it must surface the code and stop.

const assert = require('node:assert/strict');
const { describeServer } = require('../lib/suite');
const { errorCode } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { wsURL } = require('../lib/raw');

const cases = [
  { why: 'unknown app key', key: 'no-such-key', code: 4001 },
  { why: 'disabled app', key: 'key-2', code: 4003 },
];

describeServer('refusal', {}, (test) => {
  for (const { why, key, code } of cases) {
    test(`${why}: raw client gets pusher:error ${code} then close ${code}`,
      async ({ server, clients }) => {
        const raw = await clients.rawOpen(wsURL(server, key));
        const close = await raw.waitClosed();
        const err = raw.find('pusher:error');
        assert.ok(err, `expected pusher:error before close; frames ${raw.describe()}, ` +
          `close ${close.code}`);
        assert.equal(err.payload.code, code, `pusher:error frame: ${err.text}`);
        assert.equal(raw.find('pusher:connection_established'), undefined,
          `no connection_established expected: ${raw.describe()}`);
        assert.equal(close.code, code, `close code (reason "${close.reason}")`);
      });

    test(`${why}: pusher-js reports error ${code} and gives up`, async ({ clients }) => {
      const c = clients.pusherJSUnwaited({ key });
      const e = await waitFor(() => c.seen.errors.find((x) => errorCode(x) === code), {
        what: `pusher-js error ${code}; errors ${JSON.stringify(c.seen.errors)}`,
      });
      assert.equal(errorCode(e), code);
      await waitFor(() => c.connection.state === 'disconnected', {
        what: `pusher-js to give up; states ${JSON.stringify(c.seen.states)}`,
      });
      assert.ok(!c.seen.states.includes('connected'), `states ${JSON.stringify(c.seen.states)}`);
    });
  }

  const badQueries = [
    { why: 'unsupported protocol 99', query: 'protocol=99&client=js&version=8.6.0', code: 4007 },
    { why: 'bad version string without protocol', query: 'client=js&version=not.a.version', code: 4006 },
  ];
  for (const { why, query, code } of badQueries) {
    test(`${why}: pusher:error ${code} then close ${code}`, async ({ server, clients }) => {
      const raw = await clients.rawOpen(wsURL(server, server.key, query));
      const close = await raw.waitClosed();
      const err = raw.find('pusher:error');
      assert.ok(err, `expected pusher:error; frames ${raw.describe()}, close ${close.code}`);
      assert.equal(err.payload.code, code, err.text);
      assert.equal(close.code, code, `close reason "${close.reason}"`);
    });
  }
});
