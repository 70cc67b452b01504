'use strict';
// roost.js starts real roost processes for the end-to-end suite: it builds the
// binary (or takes $ROOST_BIN), writes a config file per server, runs
// `roost serve --addr 127.0.0.1:0` and waits for the "serving on" line that the
// CLI contract promises on stdout. Every child is tracked so that none outlives
// the test process, whatever way that process ends.

const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const appsDB = require('./appsdb');
const tls = require('./tls');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_BIN = path.join(REPO_ROOT, 'e2e', '.tmp', 'roost');
const START_TIMEOUT_MS = 20000;
const STOP_TIMEOUT_MS = 10000;
const STDERR_CAP = 64 * 1024;
const SERVING_RE = /serving on (https?:\/\/([^\s/]+):(\d+))/;

// TRANSPORTS is the list every suite runs against; ROOST_TRANSPORTS="epoll"
// narrows it while debugging one path.
const TRANSPORTS = (process.env.ROOST_TRANSPORTS || 'epoll,portable')
  .split(',').map((s) => s.trim()).filter(Boolean);

// DEFAULT_APPS mirrors the example config of the CLI contract: app 1 is live
// with client events, app 2 exists but is disabled (close code 4003).
const DEFAULT_APPS = [
  { id: '1', key: 'key-1', secret: 'secret-1', client_events: true },
  { id: '2', key: 'key-2', secret: 'secret-2', enabled: false },
];

const children = new Set();
let builtBin = null;

// binary returns the roost executable, building it once per test process;
// `go build` itself skips the link when nothing changed.
function binary() {
  if (process.env.ROOST_BIN) return path.resolve(REPO_ROOT, process.env.ROOST_BIN);
  if (builtBin) return builtBin;
  fs.mkdirSync(path.dirname(DEFAULT_BIN), { recursive: true });
  try {
    execFileSync('go', ['build', '-o', DEFAULT_BIN, './cmd/roost'], {
      cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const out = `${err.stdout || ''}${err.stderr || ''}`.trim();
    throw new Error(`go build ./cmd/roost failed:\n${out || err.message}`);
  }
  builtBin = DEFAULT_BIN;
  return builtBin;
}

// yamlApp renders one app as a YAML flow mapping; values are written as JSON,
// which YAML reads as the same value (lists such as webhooks included).
function yamlApp(app) {
  const fields = Object.entries(app).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return `  - { ${fields.join(', ')} }`;
}

// configYAML renders the config file of the CLI contract.
function configYAML(opts) {
  return [
    'addr: 127.0.0.1:0',
    `activity_timeout: ${opts.activityTimeout || '120s'}`,
    `pong_wait: ${opts.pongWait || '30s'}`,
    `limits: { max_message_size: ${opts.maxMessageSize || 65536} }`,
    'apps:',
    ...(opts.apps || DEFAULT_APPS).map(yamlApp),
    '',
  ].join('\n');
}

// tail keeps the last STDERR_CAP bytes of a stream so failures can show it.
function tail(stream) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buf += chunk;
    if (buf.length > STDERR_CAP) buf = buf.slice(buf.length - STDERR_CAP);
  });
  return () => buf;
}

// childEnv is this process's environment without ROOST_* variables: roost
// reads those as configuration (and rejects unknown ones, such as ROOST_BIN),
// so the config file alone must decide how a test server behaves.
function childEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ROOST_')));
}

// exitPromise resolves once proc is gone: it exited, or it never started
// (spawn 'error' with no pid, e.g. a wrong $ROOST_BIN).
function exitPromise(proc) {
  return new Promise((resolve) => {
    const done = (res) => { children.delete(proc); resolve(res); };
    proc.once('exit', (code, signal) => done({ code, signal }));
    proc.once('error', (err) => { if (proc.pid === undefined) done({ code: null, signal: null, err }); });
  });
}

// waitServing resolves with the URL parts of the "serving on" line, or rejects
// when the process exits first or stays silent past START_TIMEOUT_MS.
function waitServing(proc, exited, stderr) {
  return new Promise((resolve, reject) => {
    let out = '';
    const fail = (why) => {
      clearTimeout(timer);
      reject(new Error(`roost ${why}\n--- stdout ---\n${out}\n--- stderr ---\n${stderr()}`));
    };
    const timer = setTimeout(() => fail(`printed no "serving on" line within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS);
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = SERVING_RE.exec(out);
      if (m) { clearTimeout(timer); resolve({ url: m[1], host: m[2], port: Number(m[3]) }); }
    });
    exited.then(({ code, signal }) => fail(`exited (code ${code}, signal ${signal}) before serving`));
  });
}

function makeStop(proc, exited, dir) {
  let stopping = null;
  return function stop(signal = 'SIGTERM') {
    if (stopping) return stopping;
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    const killer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    stopping = exited.then((res) => {
      clearTimeout(killer);
      fs.rmSync(dir, { recursive: true, force: true });
      return { ...res, forced: res.signal === 'SIGKILL' && signal !== 'SIGKILL' };
    });
    return stopping;
  };
}

/**
 * startRoost runs one roost server and waits until it listens.
 * opts: { transport, activityTimeout ("1s"), pongWait, maxMessageSize, apps, args,
 *         env (extra variables; inherited ROOST_* ones are dropped) }.
 * With E2E_TLS_CERT set (lib/tls.js) it serves wss:// and https://, and tls is true.
 * Returns { url, host, port, tls, key, secret, appId, apps, transport, proc,
 *           exited (Promise<{code,signal}>), stop(signal?) -> exit info, stderr() }.
 */
async function startRoost(opts = {}) {
  const bin = binary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roost-e2e-'));
  const cfg = path.join(dir, 'roost.yaml');
  const store = appsDB.enabled() ? appsDB.create() : null;
  fs.writeFileSync(cfg, configYAML(store ? { ...opts, apps: [] } : opts));
  const args = ['serve', '--addr', '127.0.0.1:0', '--config', cfg, ...(store ? store.args : []),
    ...tls.serverArgs()];
  if (opts.transport) args.push('--transport', opts.transport);
  const proc = spawn(bin, args.concat(opts.args || []), {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...childEnv(), ...opts.env, ...(store ? store.env : {}) },
  });
  children.add(proc);
  const stderr = tail(proc.stderr);
  const exited = exitPromise(proc);
  const stopProc = makeStop(proc, exited, dir);
  const stop = store ? (signal) => stopProc(signal).then((res) => { store.drop(); return res; }) : stopProc;
  const spawnFailed = new Promise((_, reject) => proc.once('error',
    (err) => reject(new Error(`cannot run ${bin}: ${err.message}`))));
  let where;
  try {
    where = await Promise.race([waitServing(proc, exited, stderr), spawnFailed]);
    if (store) await store.fill(where.url, opts.apps || DEFAULT_APPS);
  } catch (err) {
    await stop('SIGKILL');
    throw err;
  }
  const app = (opts.apps || DEFAULT_APPS)[0];
  return {
    ...where, tls: tls.enabled(), key: app.key, secret: app.secret, appId: app.id,
    apps: opts.apps || DEFAULT_APPS, transport: opts.transport, proc, exited, stop, stderr,
  };
}

// liveChildren counts roost processes this test process started and that
// have not exited yet; suites assert it is zero at the end.
function liveChildren() {
  return children.size;
}

function killAll() {
  for (const proc of children) {
    try { proc.kill('SIGKILL'); } catch { /* already gone */ }
  }
}

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => { killAll(); process.kill(process.pid, sig); });
}

module.exports = { startRoost, liveChildren, binary, configYAML, TRANSPORTS, DEFAULT_APPS, REPO_ROOT };
