'use strict';
// features.js holds what the channel-type and user-feature suites share on top
// of the harness in suite.js and clients.js: an auth backend per server block,
// pusher-js clients authorized by it, waits for events and failures, markers
// that prove an event did NOT arrive (a later event arrives and the unwanted
// one is still absent), sign-in, Laravel Echo and raw-frame subscriptions.

const { before, after } = require('node:test');
const { startAuthEndpoint } = require('./backend');
const { received, sdk } = require('./clients');
const { waitFor } = require('./poll');
const appsDB = require('./appsdb');

/**
 * useAuthEndpoint starts an auth backend for ctx.server before the block's
 * tests (as ctx.auth) and stops it after them. Call it inside a
 * describeServer body; opts go to startAuthEndpoint.
 */
function useAuthEndpoint(ctx, opts) {
  before(async () => { ctx.auth = await startAuthEndpoint(ctx.server, opts); });
  after(async () => { if (ctx.auth) await ctx.auth.close(); });
}

/**
 * authedClient opens a pusher-js client (tracked by ctx.clients) whose
 * channel authorization and user authentication go to ctx.auth with params.
 * opts: { key (another app), pusher (more pusher-js options) }.
 */
function authedClient(ctx, params = {}, opts = {}) {
  return ctx.clients.pusherJS({
    key: opts.key,
    pusher: { ...ctx.auth.pusherOptions(params), ...opts.pusher },
  });
}

/** record makes channel keep every event it emits in channel.received. */
function record(channel) {
  if (channel.received) return channel;
  channel.received = [];
  channel.failures = [];
  channel.bind_global((event, data) => channel.received.push({ event, data }));
  channel.bind('pusher:subscription_error', (e) => channel.failures.push(e));
  return channel;
}

/**
 * subscribeFails subscribes client to name, waits for
 * pusher:subscription_error and returns the channel (channel.failures holds
 * the error data). It throws if the subscription succeeds instead.
 */
async function subscribeFails(client, name) {
  const channel = record(client.subscribe(name));
  await waitFor(() => channel.subscribed || channel.failures.length > 0, {
    what: `subscription_error on ${name}; got ${JSON.stringify(channel.received)}`,
  });
  if (channel.subscribed) throw new Error(`subscribe ${name} succeeded but should have failed`);
  return channel;
}

/**
 * waitEvents waits until channel has received at least n events named event
 * and returns all of them (their data, in order).
 */
async function waitEvents(channel, event, n = 1) {
  await waitFor(() => received(channel, event).length >= n, {
    what: `${n} x ${event} on ${channel.name}; got ${JSON.stringify(channel.received)}`,
  });
  return received(channel, event);
}

/** appEvents lists the names of the non-pusher events channel received. */
function appEvents(channel) {
  return channel.received.map((r) => r.event).filter((e) => !e.startsWith('pusher:'));
}

let markers = 0;

/**
 * marker publishes a fresh event on channelName through api (a `pusher`
 * SDK) and waits until every channel in watchers has it. Events the server
 * sent those connections earlier have then arrived too, so a test can assert
 * that an unwanted one is absent. Returns the marker's event name.
 */
async function marker(api, channelName, watchers) {
  markers += 1;
  const name = `marker-${markers}`;
  const res = await api.trigger(channelName, name, { marker: markers });
  if (res.status !== 200) throw new Error(`marker trigger answered ${res.status}`);
  for (const ch of watchers) await waitEvents(ch, name);
  return name;
}

/** pusherErrors returns the data of every pusher:error client received. */
function pusherErrors(client) {
  return client.seen.errors.filter((e) => e && e.type === 'PusherError').map((e) => e.data || {});
}

/**
 * signIn calls pusher-js' signin() and waits until the server-to-user
 * channel it subscribes after pusher:signin_success is subscribed.
 */
async function signIn(client) {
  const errors = [];
  client.user.bind('pusher:signin_error', (e) => errors.push(e));
  client.signin();
  await waitFor(() => {
    if (errors.length > 0) throw new Error(`signin_error ${JSON.stringify(errors)}`);
    const ch = client.user.serverToUserChannel;
    return ch && ch.subscribed;
  }, { what: `sign-in of ${client.connection.socket_id} (states ${JSON.stringify(client.seen.states)})` });
  return client.user.user_data;
}

/**
 * waitConnections polls the HTTP API (GET /channels/{name},
 * info=subscription_count) until name has n subscribed connections, so a
 * test knows the server has processed a connection closing. sdkOpts pick
 * another app.
 */
function waitConnections(server, name, n, sdkOpts) {
  const api = sdk(server, sdkOpts);
  let last;
  return waitFor(async () => {
    const res = await api.get({ path: `/channels/${name}`, params: { info: 'subscription_count' } });
    last = await res.json();
    return last.subscription_count === n;
  }, { what: `${n} connections subscribed to ${name} (last reply ${JSON.stringify(last)})` });
}

/**
 * loadEcho returns the Laravel Echo class. The package is an ES module
 * ("type": "module"), so its CommonJS build cannot be require()d on Node 20;
 * the ESM entry is imported instead.
 */
async function loadEcho() {
  return (await import('laravel-echo')).default;
}

/**
 * echoFor wraps an existing pusher-js client in Laravel Echo the way apps
 * that build their own client do (broadcaster 'pusher', options.client).
 */
async function echoFor(client) {
  const Echo = await loadEcho();
  return new Echo({ broadcaster: 'pusher', key: client.key, client, withoutInterceptors: true });
}

/**
 * rawSubscribe sends pusher:subscribe for name from a RawClient and waits
 * for the reply on that channel: subscription_succeeded or
 * subscription_error (whichever comes; the frame is returned).
 */
async function rawSubscribe(raw, name, auth = '', channelData) {
  const data = { channel: name, auth };
  if (channelData !== undefined) data.channel_data = channelData;
  raw.send({ event: 'pusher:subscribe', data });
  return raw.next((f) => f.channel === name &&
    ['pusher_internal:subscription_succeeded', 'pusher:subscription_error'].includes(f.event));
}

/**
 * rawAuthorized subscribes raw to a private, presence or encrypted channel
 * with a signature from the SDK (data = presence channel_data object).
 */
function rawAuthorized(server, raw, name, data, sdkOpts) {
  const auth = sdk(server, sdkOpts).authorizeChannel(raw.socketId, name, data);
  return rawSubscribe(raw, name, auth.auth, auth.channel_data);
}

/**
 * skipForAppsDB reports (with a skipped test) a run whose apps live in
 * soketi's table, which has no compression column unless one adds it, and
 * returns true; a describeServer body of compression tests then returns.
 */
function skipForAppsDB(test) {
  if (!appsDB.enabled()) return false;
  test('skipped: the apps table has no compression column', (t) => t.skip('compression is set in the config file here'));
  return true;
}

module.exports = {
  skipForAppsDB,
  useAuthEndpoint, authedClient, record, subscribeFails, waitEvents, appEvents, marker,
  pusherErrors, signIn, waitConnections, loadEcho, echoFor, rawSubscribe, rawAuthorized,
};
