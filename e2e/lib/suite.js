'use strict';
// suite.js runs one block of tests against a fresh roost per transport
// (--transport epoll and --transport portable), closes every client after each
// test and the server after the block, appends the server's stderr to any
// failure, and fails the file if a roost process outlives its tests.

const { describe, it, before, after, beforeEach, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const { startRoost, liveChildren, TRANSPORTS } = require('./roost');
const { Clients } = require('./clients');

const STDERR_IN_FAILURE = 4000;

const LINGER_MS = 5000;

after(() => {
  assert.equal(liveChildren(), 0, 'roost processes left running after the suite');
  lingerGuard();
});

// lingerGuard ends the test process if something keeps it alive LINGER_MS after
// the last test. pusher-js can keep a reconnect loop running after
// disconnect() when its server vanished mid-retry (seen after the 4200 drain
// under load); that must not hang the run. The timer is unref'd, so a clean
// process exits at once and never reaches it; results are already reported.
function lingerGuard() {
  setTimeout(() => {
    process.stderr.write(`e2e: still alive ${LINGER_MS} ms after the last test ` +
      `(${process.getActiveResourcesInfo().join(', ')}); exiting\n`);
    process.exit();
  }, LINGER_MS).unref();
}

function withStderr(ctx, fn) {
  return async (t) => {
    try {
      await fn(ctx, t);
    } catch (err) {
      const log = ctx.server ? ctx.server.stderr().slice(-STDERR_IN_FAILURE) : '';
      if (log && err && typeof err.message === 'string') {
        err.message += `\n--- roost stderr (tail) ---\n${log}`;
      }
      throw err;
    }
  };
}

/**
 * describeServer declares `title [transport]` for every transport. body gets
 * (test, ctx): test(name, fn) declares a test that receives ctx =
 * { server, clients, transport } and t; serverOpts go to startRoost.
 */
function describeServer(title, serverOpts, body) {
  for (const transport of TRANSPORTS) {
    describe(`${title} [${transport}]`, () => {
      const ctx = { server: null, clients: null, transport };
      before(async () => { ctx.server = await startRoost({ ...serverOpts, transport }); });
      beforeEach(() => { ctx.clients = new Clients(ctx.server); });
      afterEach(async () => { if (ctx.clients) await ctx.clients.closeAll(); });
      after(async () => { if (ctx.server) await ctx.server.stop(); });
      body((name, fn) => it(name, withStderr(ctx, fn)), ctx);
    });
  }
}

/** uniqueName returns a channel name no other test in this process uses. */
let counter = 0;
function uniqueName(prefix) {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

module.exports = { describeServer, uniqueName, withStderr };
