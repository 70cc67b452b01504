'use strict';
// sign.js signs HTTP API requests by hand (Pusher "HTTP API reference",
// "Generating authentication signatures") so tests can send what the SDK
// refuses to: stale timestamps, too many channels. It is checked against the
// Pusher docs' test vector in test/sign.test.js, so a 401 from roost means roost
// rejected the request, not that this file signs wrongly.

const crypto = require('node:crypto');

function hmacHex(secret, text) {
  return crypto.createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

function md5Hex(text) {
  return crypto.createHash('md5').update(text, 'utf8').digest('hex');
}

/**
 * signedQuery returns the query string for method+path: auth_key,
 * auth_timestamp (seconds; pass `timestamp` to forge an old one),
 * auth_version, body_md5 for a non-empty body, any extra params, and
 * auth_signature over "METHOD\nPATH\nsorted k=v&..." keyed by secret.
 */
function signedQuery({ key, secret, method, path, body, params = {}, timestamp }) {
  const q = {
    auth_key: key,
    auth_timestamp: String(timestamp ?? Math.floor(Date.now() / 1000)),
    auth_version: '1.0',
    ...params,
  };
  if (body) q.body_md5 = md5Hex(body);
  const sorted = Object.entries(q).map(([k, v]) => [k.toLowerCase(), v])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&');
  const sig = hmacHex(secret, `${method.toUpperCase()}\n${path}\n${sorted}`);
  return { sorted, signature: sig, query: `${sorted}&auth_signature=${sig}` };
}

/**
 * apiRequest sends a signed request to server's HTTP API for its first app
 * and resolves with { status, body }. opts: { method, path (after
 * /apps/{id}), body (object), timestamp, secret, key, appId }.
 */
async function apiRequest(server, opts) {
  const method = opts.method || 'POST';
  const path = `/apps/${opts.appId || server.appId}${opts.path}`;
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const { query } = signedQuery({
    key: opts.key || server.key, secret: opts.secret || server.secret,
    method, path, body, params: opts.params, timestamp: opts.timestamp,
  });
  const res = await fetch(`${server.url}${path}?${query}`, {
    method, body, headers: body ? { 'content-type': 'application/json' } : {},
  });
  return { status: res.status, body: await res.text() };
}

module.exports = { signedQuery, apiRequest, hmacHex, md5Hex };
