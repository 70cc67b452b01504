'use strict';
// tls.js runs the whole suite over wss:// and https://: `npm run test:tls`
// (or `make e2e`, which runs it after the plain suite). It makes a
// self-signed certificate for 127.0.0.1 with openssl, then runs `node --test`
// with E2E_TLS_CERT and E2E_TLS_KEY set, which make every test server serve
// TLS itself (lib/roost.js) and every client dial it with TLS, and with
// NODE_EXTRA_CA_CERTS trusting the certificate: pusher-js, the `pusher` SDK,
// `ws` and fetch all verify it as they would a real one. Node reads
// NODE_EXTRA_CA_CERTS only when a process starts, hence this launcher.
// SSL_CERT_FILE makes the roost nodes (Go) trust it too, as they verify each
// other when they forward HTTP fallback requests (cluster-fallback.test.js).

const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// makeCertificate writes cert.pem and key.pem (P-256, valid two days) into dir.
function makeCertificate(dir) {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
    '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=roost-e2e',
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return { cert, key };
}

function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roost-e2e-tls-'));
  try {
    const { cert, key } = makeCertificate(dir);
    const args = ['--test', '--test-concurrency=1', '--test-timeout=120000', ...process.argv.slice(2)];
    if (!process.argv.slice(2).some((a) => !a.startsWith('-'))) args.push('test/');
    const env = { ...process.env, E2E_TLS_CERT: cert, E2E_TLS_KEY: key, NODE_EXTRA_CA_CERTS: cert, SSL_CERT_FILE: cert };
    const res = spawnSync(process.execPath, args, { stdio: 'inherit', env, cwd: path.join(__dirname, '..') });
    process.exitCode = res.status === null ? 1 : res.status;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** enabled reports whether this run serves TLS, and files() where the certificate is. */
function enabled() {
  return Boolean(process.env.E2E_TLS_CERT);
}

/** serverArgs are the roost flags that make a test server serve TLS, if enabled. */
function serverArgs() {
  return enabled() ? ['--tls-cert', process.env.E2E_TLS_CERT, '--tls-key', process.env.E2E_TLS_KEY] : [];
}

module.exports = { enabled, serverArgs };

if (require.main === module) main();
