'use strict';
// poll.js waits for conditions instead of sleeping: a test states what it is
// waiting for and gets a failure that says so when it does not happen. The
// deadline exists only so a broken server fails the test instead of hanging it;
// no assertion depends on how fast anything is.

const DEFAULT_TIMEOUT_MS = 10000;
const DEFAULT_INTERVAL_MS = 10;

/**
 * waitFor calls cond until it returns a truthy value (or a promise of one) and
 * resolves with that value. opts: { timeout, interval, what (for the message) }.
 */
async function waitFor(cond, opts = {}) {
  const timeout = opts.timeout || DEFAULT_TIMEOUT_MS;
  const interval = opts.interval || DEFAULT_INTERVAL_MS;
  const deadline = Date.now() + timeout;
  let lastErr;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      const why = lastErr ? ` (last error: ${lastErr.message || lastErr})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${opts.what || 'condition'}${why}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

/**
 * withTimeout rejects with a message naming `what` when promise does not
 * settle within ms; it clears its timer either way.
 */
function withTimeout(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

module.exports = { waitFor, withTimeout, DEFAULT_TIMEOUT_MS };
