'use strict';
// backend.js plays the app's own backend: the small HTTP endpoint that
// pusher-js asks for channel authorization (Pusher docs, "Authorizing users")
// and user authentication ("Authenticating users"). It signs with the official
// `pusher` SDK (authorizeChannel, authenticateUser), so roost is judged against
// the signatures real backends produce, not against our own signing code.
//
// The identity a request signs for comes from the parameters the pusher-js
// client was configured with (channelAuthorization.params and
// userAuthentication.params), which pusher-js posts along with socket_id:
//   user_id            the presence member / signed-in user
//   user_info          JSON text of the user's info
//   watchlist          comma-separated user ids (user authentication only)
//   forge=1            sign with a wrong secret (a forged signature)
//   omit_channel_data=1  presence auth without channel_data (signed-in user)

const crypto = require('node:crypto');
const http = require('node:http');
const { sdk } = require('./clients');

const CHANNEL_PATH = '/pusher/auth';
const USER_PATH = '/pusher/user-auth';
const MAX_BODY = 64 * 1024;

/**
 * newMasterKey returns a fresh base64 32-byte master key for encrypted
 * channels (Pusher docs, "Encrypted channels": encryptionMasterKeyBase64).
 */
function newMasterKey() {
  return crypto.randomBytes(32).toString('base64');
}

// readForm reads an application/x-www-form-urlencoded body (what pusher-js'
// ajax auth transport posts) into a plain object.
function readForm(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
      if (body.length > MAX_BODY) reject(new Error('auth request body too large'));
    });
    req.on('end', () => resolve(Object.fromEntries(new URLSearchParams(body))));
    req.on('error', reject);
  });
}

// userOf builds the SDK's user object from the posted parameters.
function userOf(p) {
  const user = { id: p.user_id };
  if (p.user_info) user.user_info = JSON.parse(p.user_info);
  if (p.watchlist) user.watchlist = p.watchlist.split(',');
  return user;
}

// presenceData is the channel_data object of a presence authorization.
function presenceData(p) {
  const data = { user_id: p.user_id };
  if (p.user_info) data.user_info = JSON.parse(p.user_info);
  return data;
}

// signChannel answers a channel authorization request the way a backend
// using the SDK's authorizeChannel does.
function signChannel(signer, p) {
  const presence = p.channel_name.startsWith('presence-');
  if (!presence || p.omit_channel_data === '1') return signer.authorizeChannel(p.socket_id, p.channel_name);
  if (!p.user_id) throw Object.assign(new Error('presence auth needs user_id'), { status: 403 });
  return signer.authorizeChannel(p.socket_id, p.channel_name, presenceData(p));
}

// signUser answers a user authentication request (SDK authenticateUser).
function signUser(signer, p) {
  if (!p.user_id) throw Object.assign(new Error('user auth needs user_id'), { status: 403 });
  return signer.authenticateUser(p.socket_id, userOf(p));
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** AuthEndpoint is a running auth backend; see startAuthEndpoint. */
class AuthEndpoint {
  constructor(server, opts) {
    this.masterKey = opts.masterKey || newMasterKey();
    const creds = { encryptionMasterKeyBase64: this.masterKey, ...opts.app };
    this.signer = sdk(server, creds);
    this.forger = sdk(server, { ...creds, secret: `${(opts.app && opts.app.secret) || server.secret}-forged` });
    this.requests = []; // { path, params } of every request, in order
    this.http = http.createServer((req, res) => this.handle(req, res));
    this.url = null;
  }

  async handle(req, res) {
    try {
      const params = await readForm(req);
      this.requests.push({ path: req.url, params });
      const signer = params.forge === '1' ? this.forger : this.signer;
      if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' });
      if (req.url === CHANNEL_PATH) return reply(res, 200, signChannel(signer, params));
      if (req.url === USER_PATH) return reply(res, 200, signUser(signer, params));
      return reply(res, 404, { error: `no route ${req.url}` });
    } catch (err) {
      return reply(res, err.status || 500, { error: err.message });
    }
  }

  listen() {
    return new Promise((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(0, '127.0.0.1', () => {
        const { port } = this.http.address();
        this.url = `http://127.0.0.1:${port}`;
        resolve(this);
      });
    });
  }

  /**
   * pusherOptions returns the pusher-js options that point channel
   * authorization and user authentication at this endpoint with params.
   */
  pusherOptions(params = {}) {
    return {
      channelAuthorization: { endpoint: this.url + CHANNEL_PATH, transport: 'ajax', params },
      userAuthentication: { endpoint: this.url + USER_PATH, transport: 'ajax', params },
    };
  }

  /** requestsFor returns the channel authorization requests for channel. */
  requestsFor(channel) {
    return this.requests.filter((r) => r.params.channel_name === channel);
  }

  close() {
    this.http.closeAllConnections();
    return new Promise((resolve) => this.http.close(() => resolve()));
  }
}

/**
 * startAuthEndpoint starts an auth backend for server on 127.0.0.1:0.
 * opts: { app: {appId, key, secret} (defaults to the server's first app),
 * masterKey (base64; a fresh one by default) }.
 */
function startAuthEndpoint(server, opts = {}) {
  return new AuthEndpoint(server, opts).listen();
}

module.exports = { startAuthEndpoint, newMasterKey, CHANNEL_PATH, USER_PATH };
