'use strict';
// clients.js wires the official npm clients to a roost under test: pusher-js
// (its Node build, WebSocket transport only, TLS when the server serves it, no
// stats beacons) and the `pusher` server SDK. It records what they see so tests
// can poll for it, and a Clients registry closes everything a test opened.

const PusherJS = require('pusher-js');
const PusherSDK = require('pusher');
const { RawClient } = require('./raw');
const { waitFor } = require('./poll');

/**
 * newPusherJS creates a pusher-js client for server (not yet waited on).
 * It records every connection state, every error and every message in
 * client.seen = { states: [], errors: [], messages: [] }.
 */
function newPusherJS(server, opts = {}) {
  const client = new PusherJS(opts.key || server.key, {
    cluster: 'roost', // required by pusher-js 8, unused with wsHost
    wsHost: server.host,
    wsPort: server.port,
    wssPort: server.port,
    forceTLS: Boolean(server.tls),
    enabledTransports: ['ws'],
    enableStats: false,
    ...opts.pusher,
  });
  const seen = { states: [], errors: [], messages: [] };
  client.connection.bind('state_change', (s) => seen.states.push(s.current));
  client.connection.bind('error', (e) => seen.errors.push(e));
  client.connection.bind('message', (m) => seen.messages.push(m));
  client.seen = seen;
  return client;
}

/** errorCode digs the Pusher error code out of a pusher-js 'error' event. */
function errorCode(e) {
  if (!e) return undefined;
  if (e.type === 'PusherError') return e.data && e.data.code;
  if (e.type === 'WebSocketError') return errorCode(e.error);
  return undefined;
}

/** connectPusherJS creates a pusher-js client and waits until it is connected. */
async function connectPusherJS(server, opts = {}) {
  const client = newPusherJS(server, opts);
  await waitFor(() => client.connection.state === 'connected', {
    what: `pusher-js connected (states ${JSON.stringify(client.seen.states)}, ` +
      `errors ${JSON.stringify(client.seen.errors)})`,
  });
  return client;
}

/**
 * subscribe subscribes client to name and waits for
 * pusher:subscription_succeeded; channel.received records every event.
 */
async function subscribe(client, name) {
  const channel = client.subscribe(name);
  channel.received = [];
  channel.failures = [];
  channel.bind_global((event, data) => channel.received.push({ event, data }));
  channel.bind('pusher:subscription_error', (e) => channel.failures.push(e));
  await waitFor(() => channel.subscribed || channel.failures.length > 0, {
    what: `subscription_succeeded on ${name}`,
  });
  if (!channel.subscribed) {
    throw new Error(`subscribe ${name} failed: ${JSON.stringify(channel.failures)}`);
  }
  return channel;
}

/** received returns the events named event that channel got, in order. */
function received(channel, event) {
  return channel.received.filter((r) => r.event === event).map((r) => r.data);
}

/** sdk returns a `pusher` server SDK for server's first app; opts override. */
function sdk(server, opts = {}) {
  return new PusherSDK({
    appId: server.appId, key: server.key, secret: server.secret,
    host: server.host, port: String(server.port), useTLS: Boolean(server.tls), timeout: 10000,
    ...opts,
  });
}

/** statusOf resolves with the HTTP status an SDK call ended with. */
async function statusOf(promise) {
  try {
    const res = await promise;
    return res.status;
  } catch (err) {
    if (err && err.status) return err.status;
    throw err;
  }
}

/** Clients tracks every client a test opens and closes them all in closeAll. */
class Clients {
  constructor(server) {
    this.server = server;
    this.open = [];
  }

  async pusherJS(opts) {
    const c = newPusherJS(this.server, opts);
    this.open.push(c);
    await waitFor(() => c.connection.state === 'connected', {
      what: `pusher-js connected (states ${JSON.stringify(c.seen.states)})`,
    });
    return c;
  }

  /** pusherJSUnwaited opens a pusher-js client without waiting for it. */
  pusherJSUnwaited(opts) {
    const c = newPusherJS(this.server, opts);
    this.open.push(c);
    return c;
  }

  async raw(opts) {
    const c = await RawClient.connect(this.server, opts);
    this.open.push(c);
    return c;
  }

  async rawOpen(url, opts) {
    const c = await RawClient.open(url, opts);
    this.open.push(c);
    return c;
  }

  async closeAll() {
    const all = this.open.splice(0);
    await Promise.all(all.map((c) => (c instanceof RawClient ? c.end() : disconnect(c))));
  }
}

// disconnect stops a pusher-js client and its retry timers.
async function disconnect(client) {
  client.disconnect();
  await waitFor(() => ['disconnected', 'initialized', 'failed'].includes(client.connection.state), {
    what: 'pusher-js disconnected', timeout: 5000,
  }).catch(() => {});
}

module.exports = {
  newPusherJS, connectPusherJS, subscribe, received, sdk, statusOf, errorCode, Clients,
};
