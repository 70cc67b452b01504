'use strict';
// raw.js is a bare WebSocket client (the `ws` package) for checks that
// pusher-js hides: exact frames, close codes, and a client that stays silent.
// pusher-js itself bundles faye-websocket, so the two never share code paths.

const WebSocket = require('ws');
const { waitFor, withTimeout, DEFAULT_TIMEOUT_MS } = require('./poll');

const PROTOCOL_QUERY = 'protocol=7&client=js&version=8.6.0&flash=false';

// wsURL is the Pusher endpoint (docs/protocol.md, "The endpoint") for app key
// on server.
function wsURL(server, key = server.key, query = PROTOCOL_QUERY) {
  const scheme = server.tls ? 'wss' : 'ws';
  return `${scheme}://${server.host}:${server.port}/app/${encodeURIComponent(key)}?${query}`;
}

// decode parses one text frame; `payload` is `data` with the double encoding
// of server-sent data undone (docs/protocol.md, "Messages": data is a
// JSON-encoded string).
function decode(text) {
  const msg = JSON.parse(text);
  let payload = msg.data;
  if (typeof payload === 'string') {
    try { payload = JSON.parse(payload); } catch { /* plain string data */ }
  }
  return { ...msg, payload, text };
}

/** RawClient records every frame and the close, and lets tests wait for them. */
class RawClient {
  constructor(ws) {
    this.ws = ws;
    this.frames = [];
    this.pings = 0; // WebSocket-level ping frames (RFC 6455 5.5.2)
    this.pongs = 0; // WebSocket-level pong frames (RFC 6455 5.5.3)
    this.close = null; // { code, reason } once closed
    ws.on('message', (data, isBinary) => this.frames.push(
      isBinary ? { binary: true, text: data.toString('hex') } : safeDecode(data.toString('utf8'))));
    ws.on('ping', () => { this.pings++; });
    ws.on('pong', () => { this.pongs++; });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => {
      this.close = { code, reason: reason.toString('utf8') };
      resolve(this.close);
    }));
  }

  /**
   * open connects and resolves once the WebSocket is open. opts.autoPong=false
   * makes the client ignore WebSocket-level pings too (a truly silent client).
   */
  static open(url, opts = {}) {
    const ws = new WebSocket(url, { autoPong: opts.autoPong !== false, handshakeTimeout: 10000 });
    ws.on('error', () => { /* surfaced through open/close below */ });
    const client = new RawClient(ws);
    const opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (req, res) =>
        reject(new Error(`WebSocket upgrade refused: HTTP ${res.statusCode} for ${url}`)));
      ws.once('error', (err) => reject(new Error(`WebSocket to ${url} failed: ${err.message}`)));
    });
    return withTimeout(opened, DEFAULT_TIMEOUT_MS, `WebSocket open to ${url}`);
  }

  /** connect opens a client and waits for pusher:connection_established. */
  static async connect(server, opts = {}) {
    const c = await RawClient.open(wsURL(server, opts.key), opts);
    const est = await c.next('pusher:connection_established');
    c.socketId = est.payload.socket_id;
    return c;
  }

  /** answerPings replies pusher:pong to every pusher:ping, as pusher-js does. */
  answerPings() {
    this.ws.on('message', (data) => {
      const f = safeDecode(data.toString('utf8'));
      if (f.event === 'pusher:ping') this.send({ event: 'pusher:pong', data: {} });
    });
    return this;
  }

  send(msg) {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** find returns the first recorded frame matching want (event name or predicate). */
  find(want) {
    const pred = typeof want === 'function' ? want : (f) => f.event === want;
    return this.frames.find(pred);
  }

  /** next waits for a frame matching want, already received or yet to come. */
  next(want, opts = {}) {
    const what = typeof want === 'string' ? `frame ${want}` : 'matching frame';
    return waitFor(() => this.find(want), {
      ...opts, what: `${what}; frames so far: ${this.describe()}`,
    }).catch((err) => { throw new Error(`${err.message}; ${this.closeText()}`); });
  }

  /** waitClosed resolves with { code, reason } when the server closes us. */
  waitClosed(ms = DEFAULT_TIMEOUT_MS) {
    return withTimeout(this.closed, ms, `close; frames so far: ${this.describe()}`);
  }

  describe() {
    return `[${this.frames.map((f) => f.text).join(', ')}]`;
  }

  closeText() {
    return this.close ? `closed with ${this.close.code} "${this.close.reason}"` : 'still open';
  }

  get isOpen() {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** end closes the socket (if open) and waits for it to be gone. */
  async end() {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    try {
      await withTimeout(this.closed, 2000, 'close handshake');
    } catch {
      this.ws.terminate();
    }
  }
}

function safeDecode(text) {
  try {
    return decode(text);
  } catch {
    return { event: undefined, invalid: true, text };
  }
}

module.exports = { RawClient, wsURL, decode, PROTOCOL_QUERY };
