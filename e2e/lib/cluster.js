'use strict';
// cluster.js runs several roost nodes over one backend for the cluster suites
// (a cluster must behave exactly like one node: docs/cluster.md). The backend
// is Redis, or, when E2E_NATS_URL is set (nats://127.0.0.1:4222), the NATS
// server with JetStream there. Every cluster gets its own random
// prefix (--redis-prefix or --nats-prefix), so suites never see each other's
// state, and its keys (or buckets) are deleted when it stops. Nodes alternate
// between the transports in TRANSPORTS, so cross-node traffic also crosses
// transports.
//
// Redis is expected at 127.0.0.1:6379, or at E2E_REDIS_URL: redis://host:port,
// a Redis Cluster, redis+cluster://host:port[,host:port...], or a primary
// behind Sentinel, redis+sentinel://host:port/mastername (no password: the
// suite's own commands do not authenticate). When it is not reachable the
// cluster suites are skipped with a message saying so, except in CI (CI=true),
// where they fail: CI must always run them.

const { describe, it, before, after, beforeEach, afterEach } = require('node:test');
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const net = require('node:net');
const { startRoost, TRANSPORTS } = require('./roost');
const { Clients } = require('./clients');
const { startAuthEndpoint } = require('./backend');
const { waitFor } = require('./poll');

const REDIS_URL = process.env.E2E_REDIS_URL || 'redis://127.0.0.1:6379';
const REDIS_CLUSTER = REDIS_URL.startsWith('redis+cluster://');
const REDIS_SENTINEL = REDIS_URL.startsWith('redis+sentinel://');
// The first node named by the URL (a server, a cluster node, a sentinel):
// the one probed, and asked for the primaries; and Sentinel's master name.
const [REDIS_HOST, REDIS_PORT, REDIS_MASTER] = (() => {
  const u = new URL(REDIS_URL.replace(/^redis\+(cluster|sentinel):/, 'redis:').replace(/,[^/]*/, ''));
  const i = u.host.lastIndexOf(':');
  return [u.host.slice(0, i), Number(u.host.slice(i + 1)), u.pathname.split('/')[1]];
})();
const NATS_URL = process.env.E2E_NATS_URL || '';
const PROBE_TIMEOUT_MS = 3000;
const STDERR_IN_FAILURE = 3000;

/** BACKEND is the cluster suites' backend: "nats" when E2E_NATS_URL is set, else "redis". */
const BACKEND = NATS_URL ? 'nats' : 'redis';
// NATS_HOST and NATS_PORT are where the suite itself talks to NATS.
const [NATS_HOST, NATS_PORT] = (() => {
  if (!NATS_URL) return ['', 0];
  const u = new URL(NATS_URL);
  if (u.protocol !== 'nats:' || !u.hostname) throw new Error(`E2E_NATS_URL=${NATS_URL}: want nats://host:port`);
  return [u.hostname, Number(u.port || 4222)];
})();

// NATS_BUCKETS are the key-value buckets a roost cluster makes under its
// prefix (docs/cluster.md, "Subjects and buckets").
const NATS_BUCKETS = ['presence', 'users', 'counts', 'cache', 'alive', 'nodes', 'webhooks', 'dashboard', 'conns', 'outbox', 'routes'];

// PROBE is run by a child node process: it connects, sends argv[3] if any
// (Redis needs a PING; NATS greets first with its INFO line) and prints the
// first line of the reply, or the connection error. The parent waits for it
// synchronously so that suites can be declared skipped before they start.
const PROBE = `
const s = require('node:net').connect(+process.argv[2], process.argv[1]);
s.setTimeout(${PROBE_TIMEOUT_MS - 500}, () => { console.log('no reply'); process.exit(); });
s.on('connect', () => { if (process.argv[3]) s.write(process.argv[3]); });
s.on('data', (d) => { console.log(String(d).split('\\r\\n')[0]); process.exit(); });
s.on('error', (e) => { console.log(e.message); process.exit(); });
`;

let unavailable; // undefined: not probed yet; null: reachable; else why not

// probe runs PROBE against host:port and returns the first line it printed.
function probe(host, port, send) {
  const res = spawnSync(process.execPath, ['-e', PROBE, host, String(port), send || ''], {
    encoding: 'utf8', timeout: PROBE_TIMEOUT_MS,
  });
  return (res.stdout || '').trim() || (res.error && res.error.message) || 'no reply';
}

/**
 * backendUnavailable returns null when the cluster backend answers (Redis
 * PONG; NATS with JetStream on), else the reason.
 */
function backendUnavailable() {
  if (unavailable !== undefined) return unavailable;
  if (BACKEND === 'nats') {
    const info = probe(NATS_HOST, NATS_PORT);
    unavailable = info.includes('"jetstream":true') ? null
      : `NATS with JetStream at ${NATS_HOST}:${NATS_PORT} is not usable (${info.slice(0, 120)})`;
  } else {
    const reply = probe(REDIS_HOST, REDIS_PORT, 'PING\r\n');
    unavailable = reply === '+PONG' ? null : `Redis at ${REDIS_HOST}:${REDIS_PORT} is not usable (${reply})`;
  }
  return unavailable;
}

/** redisUnavailable is backendUnavailable, by the name the suites first used. */
const redisUnavailable = backendUnavailable;

/** inCI reports whether the suite runs in CI, where skipping is a failure. */
function inCI() {
  return ['true', '1'].includes(String(process.env.CI || '').toLowerCase());
}

// encodeCommand renders one RESP command (an array of bulk strings).
function encodeCommand(args) {
  const parts = [`*${args.length}\r\n`];
  for (const a of args) parts.push(`$${Buffer.byteLength(String(a))}\r\n${a}\r\n`);
  return parts.join('');
}

// parseReply reads one RESP reply from buf at pos: { value, next }, or null
// while the reply is incomplete.
function parseReply(buf, pos) {
  const eol = buf.indexOf('\r\n', pos);
  if (eol < 0) return null;
  const type = String.fromCharCode(buf[pos]);
  const line = buf.toString('utf8', pos + 1, eol);
  if (type === '+') return { value: line, next: eol + 2 };
  if (type === '-') return { value: new Error(line), next: eol + 2 };
  if (type === ':') return { value: Number(line), next: eol + 2 };
  if (type === '$') return parseBulk(buf, eol + 2, Number(line));
  if (type === '*') return parseArray(buf, eol + 2, Number(line));
  throw new Error(`unexpected RESP reply type ${JSON.stringify(type)}`);
}

function parseBulk(buf, start, len) {
  if (len < 0) return { value: null, next: start };
  if (buf.length < start + len + 2) return null;
  return { value: buf.toString('utf8', start, start + len), next: start + len + 2 };
}

function parseArray(buf, start, n) {
  const value = [];
  let next = start;
  for (let i = 0; i < n; i++) {
    const r = parseReply(buf, next);
    if (!r) return null;
    value.push(r.value);
    next = r.next;
  }
  return { value, next };
}

/**
 * redisCommand runs one command on a fresh connection to the first node and
 * resolves with its reply: enough for finding and deleting a cluster's keys.
 */
function redisCommand(...args) {
  return redisCommandAt({ host: REDIS_HOST, port: REDIS_PORT }, ...args);
}

/** redisCommandAt is redisCommand on the node at { host, port }. */
function redisCommandAt(node, ...args) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(node.port, node.host);
    let buf = Buffer.alloc(0);
    sock.setTimeout(5000, () => sock.destroy(new Error(`Redis ${args[0]} timed out`)));
    sock.on('connect', () => sock.write(encodeCommand(args)));
    sock.on('error', reject);
    sock.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const r = parseReply(buf, 0);
      if (!r) return;
      sock.end();
      if (r.value instanceof Error) reject(r.value); else resolve(r.value);
    });
  });
}

/**
 * primaries lists the nodes that hold keys: the one Redis, the primary that
 * Sentinel names, or every primary of a Redis Cluster (from CLUSTER NODES).
 */
async function primaries() {
  const first = { host: REDIS_HOST, port: REDIS_PORT };
  if (REDIS_SENTINEL) {
    const [host, port] = await redisCommand('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', REDIS_MASTER);
    return [{ host, port: Number(port) }];
  }
  if (!REDIS_CLUSTER) return [first];
  const nodes = String(await redisCommand('CLUSTER', 'NODES'));
  return nodes.split('\n').map((line) => line.split(' ')).filter((f) => f.length > 2 && /master/.test(f[2]) && !/fail/.test(f[2]))
    .map((f) => {
      const addr = f[1].split('@')[0];
      const i = addr.lastIndexOf(':');
      return { host: addr.slice(0, i) || REDIS_HOST, port: Number(addr.slice(i + 1)) };
    });
}

/** keysAt lists the keys under prefix on one node (SCAN, never KEYS). */
async function keysAt(node, prefix) {
  const keys = [];
  let cursor = '0';
  do {
    const [next, batch] = await redisCommandAt(node, 'SCAN', cursor, 'MATCH', `${prefix}:*`, 'COUNT', '1000');
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** keysOf lists every Redis key under prefix, on every primary. */
async function keysOf(prefix) {
  const all = await Promise.all((await primaries()).map((n) => keysAt(n, prefix)));
  return all.flat().sort();
}

/**
 * deleteKeys removes every key under prefix and returns how many there were;
 * on a Redis Cluster one key a command, on the node that holds it.
 */
async function deleteKeys(prefix) {
  let n = 0;
  for (const node of await primaries()) {
    const keys = await keysAt(node, prefix);
    n += keys.length;
    if (REDIS_CLUSTER) {
      for (const k of keys) await redisCommandAt(node, 'DEL', k);
    } else if (keys.length > 0) {
      await redisCommandAt(node, 'DEL', ...keys);
    }
  }
  return n;
}

/**
 * deleteBuckets removes the JetStream key-value buckets under prefix (a
 * stream each, KV_<prefix>_<name>) through the JetStream API, on one NATS
 * connection spoken by hand, and resolves once every request is answered.
 */
function deleteBuckets(prefix) {
  const inbox = `_INBOX.roost-e2e-${crypto.randomBytes(6).toString('hex')}`;
  return new Promise((resolve, reject) => {
    const sock = net.connect(NATS_PORT, NATS_HOST);
    let got = '';
    sock.setTimeout(5000, () => sock.destroy(new Error('NATS bucket deletion timed out')));
    sock.on('error', reject);
    sock.once('data', () => {
      const reqs = NATS_BUCKETS.map((b) => `PUB $JS.API.STREAM.DELETE.KV_${prefix}_${b} ${inbox} 0\r\n\r\n`);
      sock.write(`CONNECT {"verbose":false}\r\nSUB ${inbox} 1\r\n${reqs.join('')}`);
      sock.on('data', (chunk) => {
        got += chunk;
        if (got.split(`MSG ${inbox} `).length - 1 >= NATS_BUCKETS.length) {
          sock.end();
          resolve();
        }
      });
    });
  });
}

/** newPrefix returns a --redis-prefix or --nats-prefix no other test run uses. */
function newPrefix() {
  return `roost-e2e-${process.pid}-${crypto.randomBytes(6).toString('hex')}`;
}

/** ready fetches GET /ready of node: { status, body }. */
async function ready(node) {
  const res = await fetch(`${node.url}/ready`);
  return { status: res.status, body: (await res.text()).trim() };
}

/** waitReady polls GET /ready of node until it answers 200. */
function waitReady(node) {
  let last = null;
  return waitFor(async () => {
    last = await ready(node);
    return last.status === 200;
  }, { what: `GET /ready 200 from ${node.url}; last ${JSON.stringify(last)}` });
}

/** Cluster is a set of running roost nodes sharing one backend prefix. */
class Cluster {
  constructor(prefix, nodes) {
    this.prefix = prefix;
    this.nodes = nodes;
  }

  /** kill9 kills node i with SIGKILL (no goodbye to Redis) and waits for it to exit. */
  kill9(i) {
    return this.nodes[i].stop('SIGKILL');
  }

  /** keys lists the Redis keys the cluster has written (Redis only). */
  keys() {
    return keysOf(this.prefix);
  }

  /** stderr returns the tail of every node's log, labelled by node. */
  stderr(limit = STDERR_IN_FAILURE) {
    return this.nodes.map((n, i) =>
      `--- node ${i + 1} ${n.url} [${n.transport}] stderr (tail) ---\n${n.stderr().slice(-limit)}`).join('\n');
  }

  /** stop stops every node (SIGTERM) and deletes the cluster's keys or buckets. */
  async stop() {
    await Promise.all(this.nodes.map((n) => n.stop()));
    if (BACKEND === 'nats') await deleteBuckets(this.prefix);
    else await deleteKeys(this.prefix);
  }
}

/**
 * startCluster starts opts.nodes (default 3) roost nodes on one fresh backend
 * prefix and waits until each answers GET /ready with 200. Other opts go to
 * startRoost (apps, activityTimeout, ...); node i uses transport
 * TRANSPORTS[i % TRANSPORTS.length].
 */
async function startCluster(opts = {}) {
  const prefix = newPrefix();
  const count = opts.nodes || 3;
  const args = BACKEND === 'nats' ? ['--nats-url', NATS_URL, '--nats-prefix', prefix]
    : ['--redis-url', REDIS_URL, '--redis-prefix', prefix];
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) =>
    startRoost({ ...opts, transport: TRANSPORTS[i % TRANSPORTS.length], args })));
  const nodes = started.filter((s) => s.status === 'fulfilled').map((s) => s.value);
  const cluster = new Cluster(prefix, nodes);
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    await Promise.all(nodes.map(waitReady));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/**
 * nodeView is what the single-node helpers of features.js expect as ctx
 * ({ server, clients, auth }), for one node of a cluster.
 */
function nodeView(ctx, i) {
  return { server: ctx.nodes[i], clients: ctx.clients[i], auth: ctx.auth };
}

// withLogs appends every node's log to a failure.
function withLogs(ctx, fn) {
  return async (t) => {
    try {
      await fn(ctx, t);
    } catch (err) {
      if (ctx.cluster && err && typeof err.message === 'string') err.message += `\n${ctx.cluster.stderr()}`;
      throw err;
    }
  };
}

// declareTests declares the block's tests with hooks that start the cluster
// and an auth backend before them and stop both after them.
function declareTests(opts, body) {
  const ctx = { cluster: null, nodes: [], clients: [], auth: null };
  ctx.at = (i) => nodeView(ctx, i);
  before(async () => {
    ctx.cluster = await startCluster(opts);
    ctx.nodes = ctx.cluster.nodes;
    ctx.auth = await startAuthEndpoint(ctx.nodes[0]);
  });
  beforeEach(() => { ctx.clients = ctx.nodes.map((n) => new Clients(n)); });
  afterEach(async () => { await Promise.all(ctx.clients.map((c) => c.closeAll())); });
  after(async () => {
    if (ctx.auth) await ctx.auth.close();
    if (ctx.cluster) await ctx.cluster.stop();
  });
  body((name, fn) => it(name, withLogs(ctx, fn)), ctx);
}

/**
 * describeCluster declares a block of cluster tests. body gets (test, ctx):
 * test(name, fn) declares a test that receives ctx = { cluster, nodes,
 * clients (one Clients per node), auth (an auth backend), at(i) (a
 * single-node ctx for features.js helpers) } and t. Without the backend the tests
 * are declared skipped with the reason (outside CI) or the block fails (CI).
 */
function describeCluster(title, opts, body) {
  const why = backendUnavailable();
  if (why && inCI()) {
    describe(title, () => {
      it(`needs ${BACKEND}: CI must run the cluster tests`, () => {
        throw new Error(`${why}; CI=true, so the cluster tests fail instead of skipping`);
      });
    });
    return;
  }
  if (why) {
    const start = BACKEND === 'nats' ? `nats-server -js on port ${NATS_PORT}` : `redis-server on port ${REDIS_PORT}`;
    const reason = `cluster tests skipped: ${why} (start ${start} to run them)`;
    console.log(reason);
    describe(title, () => body((name) => it(name, { skip: reason }, () => {}), {}));
    return;
  }
  describe(title, () => declareTests(opts, body));
}

module.exports = {
  describeCluster, startCluster, backendUnavailable, redisUnavailable, inCI, ready, waitReady, keysOf,
  deleteKeys, redisCommand, REDIS_URL, NATS_URL, BACKEND,
};
