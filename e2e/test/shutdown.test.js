'use strict';
// Graceful shutdown (CLI contract, docs/protocol.md "Error and close codes"):
// on SIGTERM every client gets pusher:error 4200 and then close 4200
// ("reconnect now"), and the process exits cleanly. Each transport gets its own
// server, which the test kills.

const fs = require('node:fs');
const path = require('node:path');
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { startRoost, TRANSPORTS } = require('../lib/roost');
const { Clients, subscribe, errorCode } = require('../lib/clients');
const { withStderr, uniqueName } = require('../lib/suite');
const { waitFor, withTimeout } = require('../lib/poll');

// dumpGoroutines makes a roost that hangs in shutdown print its goroutines
// (SIGQUIT), saves its stderr under e2e/.tmp and fails with the file's name.
async function dumpGoroutines(server, err) {
  server.proc.kill('SIGQUIT');
  await withTimeout(server.exited, 5000, 'roost to exit after SIGQUIT').catch(() => {});
  const file = path.join(__dirname, '..', '.tmp', `shutdown-hang-${server.transport}-${process.pid}.txt`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, server.stderr());
  throw new Error(`${err.message}; goroutine dump in ${file}`);
}

for (const transport of TRANSPORTS) {
  describe(`shutdown [${transport}]`, () => {
    const ctx = { server: null, clients: null, transport };

    it('SIGTERM sends pusher:error 4200, closes with 4200 and exits 0', withStderr(ctx, async (_, t) => {
      ctx.server = await startRoost({ transport });
      ctx.clients = new Clients(ctx.server);
      t.after(async () => { await ctx.clients.closeAll(); await ctx.server.stop('SIGKILL'); });
      const raws = [await ctx.clients.raw(), await ctx.clients.raw()];
      raws[1].send({ event: 'pusher:subscribe', data: { auth: '', channel: uniqueName('drain') } });
      await raws[1].next('pusher_internal:subscription_succeeded');
      const pjs = await ctx.clients.pusherJS();
      await subscribe(pjs, uniqueName('drain'));

      ctx.server.proc.kill('SIGTERM');
      for (const raw of raws) {
        const close = await raw.waitClosed(15000);
        const err = raw.find('pusher:error');
        assert.ok(err, `expected pusher:error 4200 before close; frames ${raw.describe()}; close ${close.code}`);
        assert.equal(err.payload.code, 4200, err.text);
        assert.equal(close.code, 4200, `close reason "${close.reason}"`);
      }
      await waitFor(() => pjs.seen.errors.some((e) => errorCode(e) === 4200), {
        what: `pusher-js error 4200; errors ${JSON.stringify(pjs.seen.errors)}`,
      });
      const exit = await withTimeout(ctx.server.exited, 15000, 'roost to exit after SIGTERM')
        .catch((err) => dumpGoroutines(ctx.server, err));
      assert.deepEqual(exit, { code: 0, signal: null }, 'exit status after SIGTERM');
    }));
  });
}
