// roost dashboard: plain JavaScript, no dependencies, nothing loaded from
// elsewhere. It reads /dashboard/api/ and the console's event stream.
'use strict';

const $ = (sel) => document.querySelector(sel);
const el = (tag, props = {}, ...children) => {
  const e = document.createElement(tag);
  Object.assign(e, props);
  for (const c of children) e.append(c);
  return e;
};

let session = null;
let overviewTimer = null;
let source = null;
let paused = false;
const maxLines = 500;

async function api(path, opts = {}) {
  const res = await fetch('/dashboard/api/' + path, { credentials: 'same-origin', ...opts });
  if (res.status === 401 && path !== 'login') { showLogin(); throw new Error('unauthorized'); }
  const body = res.status === 204 ? null : await res.json();
  if (!res.ok) throw new Error((body && body.error) || res.statusText);
  return body;
}

function postJSON(path, value) {
  return api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
}

function showLogin() {
  $('#app').hidden = true;
  $('#logout').hidden = true;
  $('#login').hidden = false;
  clearInterval(overviewTimer);
  if (source) source.close();
  $('#token').focus();
}

async function start() {
  try {
    session = await api('session');
  } catch (e) {
    return;
  }
  $('#login').hidden = true;
  $('#app').hidden = false;
  $('#logout').hidden = !session.login;
  $('#node').textContent = 'node ' + session.node + ' · ' + session.go;
  if (!session.console) {
    $('#tab-console').hidden = true;
    $('#tab-send').hidden = true;
    $('#off').hidden = false;
  }
  await loadApps();
  refreshOverview();
  clearInterval(overviewTimer);
  overviewTimer = setInterval(refreshOverview, Math.max(1000, session.interval_ms));
}

$('#login-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('#login-error').textContent = '';
  try {
    await postJSON('login', { token: $('#token').value });
    $('#token').value = '';
    start();
  } catch (e) {
    $('#login-error').textContent = e.message;
  }
});

$('#logout').addEventListener('click', async () => {
  await postJSON('logout', {});
  showLogin();
});

// Tabs: arrow keys move between them, as the ARIA tabs pattern describes.
const tabs = [...document.querySelectorAll('[role=tab]')];
function selectTab(tab) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute('aria-selected', on);
    t.tabIndex = on ? 0 : -1;
    $('#' + t.getAttribute('aria-controls')).hidden = !on;
  }
  tab.focus();
  if (tab.id === 'tab-apps') loadChannels();
}
for (const t of tabs) {
  t.addEventListener('click', () => selectTab(t));
  t.addEventListener('keydown', (ev) => {
    const shown = tabs.filter((x) => !x.hidden);
    const i = shown.indexOf(t);
    if (ev.key === 'ArrowRight') selectTab(shown[(i + 1) % shown.length]);
    if (ev.key === 'ArrowLeft') selectTab(shown[(i - 1 + shown.length) % shown.length]);
  });
}

// Overview
const figures = [
  ['connections', 'Connections', (s) => s.connections, fmtInt],
  ['channels', 'Channels', (s) => s.channels, fmtInt],
  ['subscriptions', 'Subscriptions', (s) => s.subscriptions, fmtInt],
  ['messages_in', 'Messages in / s', (s) => s.messages_in, fmtRate],
  ['frames_out', 'Frames out / s', (s) => s.frames_out, fmtRate],
  ['handshakes', 'Handshakes / s', (s) => s.handshakes, fmtRate],
  ['closes', 'Closes / s', (s) => sum(s.closes), fmtRate, closesText],
  ['rss', 'RSS', (s) => s.rss, fmtBytes],
  ['rss_per_connection', 'RSS per connection', (s) => s.rss_per_connection, fmtBytes],
  ['goroutines', 'Goroutines', (s) => s.goroutines, fmtInt],
  ['heap', 'Go heap', (s) => s.heap, fmtBytes],
];

function sum(m) { return m ? Object.values(m).reduce((a, b) => a + b, 0) : 0; }
function fmtInt(v) { return Math.round(v || 0).toLocaleString('en'); }
function fmtRate(v) { return (v || 0).toFixed(v >= 10 ? 0 : 1); }
function fmtBytes(v) {
  v = v || 0;
  const u = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return v.toFixed(i && v < 10 ? 1 : 0) + ' ' + u[i];
}
function closesText(s) {
  if (!s.closes) return '';
  return Object.entries(s.closes).filter(([, v]) => v > 0).map(([k, v]) => k + ' ' + fmtRate(v)).join(', ');
}

function plot(values) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 100 40');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  if (values.length < 2) return svg;
  const hi = Math.max(...values, 1e-9);
  const pts = values.map((v, i) => (i * 100 / (values.length - 1)).toFixed(2) + ',' + (38 - 36 * v / hi).toFixed(2));
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', pts.join(' '));
  svg.append(line);
  return svg;
}

async function refreshOverview() {
  let o;
  try { o = await api('overview'); } catch (e) { return; }
  const last = o.samples.length ? o.samples[o.samples.length - 1] : o.now;
  const now = Object.assign({}, last, { connections: o.now.connections, channels: o.now.channels,
    subscriptions: o.now.subscriptions, rss: o.now.rss, rss_per_connection: o.now.rss_per_connection,
    goroutines: o.now.goroutines, heap: o.now.heap });
  const cards = $('#cards');
  cards.replaceChildren();
  for (const [id, title, get, fmt, extra] of figures) {
    const series = o.samples.map(get);
    const card = el('div', { className: 'card', id: 'card-' + id },
      el('h3', { textContent: title }),
      el('div', { className: 'value', textContent: fmt(get(now)) }),
      plot(series));
    if (extra) card.append(el('div', { className: 'muted', textContent: extra(now) }));
    card.setAttribute('aria-label', title + ': ' + fmt(get(now)));
    cards.append(card);
  }
  showCluster(o);
  showWebhooks(o);
  const r = $('#redis');
  r.textContent = now.redis ? '· Redis link ' + now.redis : '· single node';
  r.className = now.redis === 'down' ? 'down' : now.redis === 'up' ? 'up' : 'muted';
  showConfig(o.config);
}

// showConfig says when the configuration was last applied, and whether the
// last reload (SIGHUP) was refused.
function showConfig(c) {
  const p = $('#config-loaded');
  p.hidden = !c;
  if (!c) return;
  p.textContent = '· config loaded ' + new Date(c.loaded).toLocaleString() +
    (c.last_reload_failed ? '; the last reload was refused (see the log)' : '');
  p.className = c.last_reload_failed ? 'down' : 'muted';
}

// showCluster lists every node's latest sample and their sum.
function showCluster(o) {
  const box = $('#cluster');
  box.hidden = !o.nodes && !o.cluster_error;
  $('#cluster-error').textContent = o.cluster_error || '';
  if (!o.nodes) return;
  const cols = [['connections', fmtInt], ['subscriptions', fmtInt], ['messages_in', fmtRate],
    ['frames_out', fmtRate], ['handshakes', fmtRate], ['rss', fmtBytes]];
  const body = $('#cluster-table tbody');
  body.replaceChildren();
  const total = {};
  for (const n of o.nodes) {
    const row = el('tr', {}, el('th', { scope: 'row', textContent: n.node + (n.node === o.node ? ' (this node)' : '') }));
    for (const [k, fmt] of cols) {
      total[k] = (total[k] || 0) + (n.sample[k] || 0);
      row.append(el('td', { textContent: fmt(n.sample[k]) }));
    }
    row.append(el('td', { textContent: n.sample.redis || '', className: n.sample.redis === 'down' ? 'down' : 'up' }));
    body.append(row);
  }
  const sum = el('tr', {}, el('th', { scope: 'row', textContent: 'All ' + o.nodes.length + ' nodes' }));
  for (const [k, fmt] of cols) sum.append(el('td', { textContent: fmt(total[k]) }));
  sum.append(el('td'));
  body.append(sum);
}

// showWebhooks lists each app's webhook figures; the outbox exists only in
// a cluster, so a single node shows none there.
function showWebhooks(o) {
  const hooks = o.webhooks || [];
  $('#webhooks').hidden = hooks.length === 0;
  const body = $('#webhook-table tbody');
  body.replaceChildren();
  const cluster = Boolean(o.now.redis);
  for (const w of hooks) {
    const dropped = Object.entries(w.dropped || {}).filter(([, n]) => n > 0);
    const cells = [['sent', fmtInt(w.sent)], ['queued', fmtInt(w.queued)],
      ['outbox', cluster ? fmtInt(w.outbox) : '—'], ['oldest', fmtAge(w.oldest_s)],
      ['failed', fmtInt(w.failed)], ['retried', fmtInt(w.retried)],
      ['dropped', fmtInt(sum(w.dropped)) + (dropped.length ? ' (' + dropped.map(([k, n]) => k + ' ' + fmtInt(n)).join(', ') + ')' : '')],
      ['adopted', fmtInt(w.adopted)]];
    const row = el('tr', {}, el('th', { scope: 'row' }, el('code', { textContent: w.app })));
    row.dataset.app = w.app;
    for (const [k, text] of cells) {
      const td = el('td', { textContent: text });
      td.dataset.figure = k;
      row.append(td);
    }
    body.append(row);
  }
}

// fmtAge writes an age in seconds; none is a dash.
function fmtAge(s) {
  if (!s) return '—';
  if (s < 60) return s.toFixed(1) + ' s';
  if (s < 3600) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

// Apps and channels
async function loadApps() {
  const { apps } = await api('apps');
  const body = $('#app-table tbody');
  body.replaceChildren();
  for (const a of apps) {
    const settings = Object.entries(a).filter(([k]) => !['id', 'key', 'enabled', 'connections'].includes(k))
      .map(([k, v]) => k + ': ' + JSON.stringify(v)).join(', ');
    const quota = a.max_connections ? ' of ' + fmtInt(a.max_connections) : '';
    body.append(el('tr', {},
      el('td', {}, el('code', { textContent: a.id })),
      el('td', {}, el('code', { textContent: a.key })),
      el('td', { textContent: a.enabled === false ? 'no' : 'yes' }),
      el('td', { textContent: fmtInt(a.connections) + quota }),
      el('td', {}, el('code', { textContent: settings }))));
  }
  for (const sel of document.querySelectorAll('.app-select')) {
    const keep = sel.value;
    sel.replaceChildren(...apps.map((a) => el('option', { value: a.id, textContent: a.id })));
    if (keep) sel.value = keep;
  }
}

async function loadChannels() {
  const app = $('#channels-app').value;
  if (!app) return;
  const q = new URLSearchParams({ app, prefix: $('#channels-prefix').value });
  let res;
  try { res = await api('channels?' + q); } catch (e) { $('#channel-total').textContent = e.message; return; }
  const body = $('#channel-table tbody');
  body.replaceChildren();
  for (const c of res.channels) {
    const btn = el('button', { type: 'button', textContent: 'Details' });
    btn.setAttribute('aria-label', 'Details of ' + c.name);
    btn.addEventListener('click', () => showChannel(app, c.name));
    body.append(el('tr', {},
      el('td', {}, el('code', { textContent: c.name })),
      el('td', { textContent: fmtInt(c.subscription_count) }),
      el('td', { textContent: c.user_count ? fmtInt(c.user_count) : '' }),
      el('td', {}, btn)));
  }
  $('#channel-total').textContent = res.total + ' occupied channel' + (res.total === 1 ? '' : 's');
}

$('#channel-filter').addEventListener('submit', (ev) => { ev.preventDefault(); loadChannels(); });

async function showChannel(app, name) {
  const d = await api('channel?' + new URLSearchParams({ app, name }));
  const box = $('#channel-detail');
  box.replaceChildren(el('h3', {}, el('code', { textContent: d.name })),
    el('p', { textContent: fmtInt(d.subscription_count) + ' subscriptions' }));
  if (d.members) {
    box.append(el('h4', { textContent: d.members.length + ' members' }),
      el('ul', {}, ...d.members.map((m) => el('li', {}, el('code', { textContent: m.id + (m.info ? ' ' + m.info : '') })))));
  }
  if (d.cached) {
    box.append(el('h4', { textContent: 'Cached event (' + d.cached.size + ' bytes, ' + d.cached.ttl_s + ' s left)' }),
      el('pre', { textContent: d.cached.hidden ? '(encrypted: data not shown)' : d.cached.data }));
  }
}

// Debug console
function line(e) {
  const t = new Date(e.time).toISOString().slice(11, 23);
  const parts = [];
  if (e.channel) parts.push(e.channel);
  if (e.event) parts.push(e.event);
  if (e.socket_id) parts.push('socket ' + e.socket_id);
  if (e.transport) parts.push('over ' + e.transport);
  if (e.user_id) parts.push('user ' + e.user_id);
  if (e.url) parts.push(e.url + ' · ' + e.events + ' event' + (e.events === 1 ? '' : 's'));
  if (e.reason) parts.push('reason ' + e.reason + (e.code ? ' (close code ' + e.code + ')' : ''));
  if (e.hidden) parts.push('data hidden (encrypted), ' + e.size + ' bytes');
  else if (e.event) parts.push(e.data);
  const li = el('li', {}, t + ' ', el('span', { className: 'type', textContent: e.type }), ' ', el('code', { textContent: parts.join(' · ') }));
  li.dataset.type = e.type;
  return li;
}

function watch() {
  if (source) source.close();
  const app = $('#console-app').value;
  const q = new URLSearchParams({ app, channel: $('#console-channel').value });
  source = new EventSource('/dashboard/api/console?' + q);
  $('#console-status').textContent = 'Connecting to the console of ' + app + '…';
  source.addEventListener('event', (m) => {
    if (paused) return;
    const log = $('#console-log');
    log.prepend(line(JSON.parse(m.data)));
    while (log.children.length > maxLines) log.lastChild.remove();
  });
  source.addEventListener('status', (m) => {
    const s = JSON.parse(m.data);
    $('#console-status').textContent = 'Watching ' + app + (paused ? ' (paused)' : '') +
      (s.skipped ? ' · ' + s.skipped + ' events skipped over the rate shown' : '');
  });
  source.onerror = () => { $('#console-status').textContent = 'Disconnected; retrying…'; };
}

$('#console-form').addEventListener('submit', (ev) => { ev.preventDefault(); watch(); });
$('#console-pause').addEventListener('click', (ev) => {
  paused = !paused;
  ev.target.textContent = paused ? 'Resume' : 'Pause';
  ev.target.setAttribute('aria-pressed', paused);
});
$('#console-clear').addEventListener('click', () => $('#console-log').replaceChildren());

// Event creator
$('#send-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const out = $('#send-result');
  const data = $('#send-data').value;
  try { JSON.parse(data); } catch (e) { out.textContent = 'Data is not JSON: ' + e.message; out.className = 'error'; return; }
  try {
    const r = await postJSON('publish', {
      app: $('#send-app').value,
      channels: $('#send-channels').value.split(',').map((s) => s.trim()).filter(Boolean),
      event: $('#send-event').value,
      data,
    });
    out.textContent = 'HTTP API answered ' + r.status + ': ' + r.body.trim();
    out.className = r.status === 200 ? 'up' : 'error';
  } catch (e) {
    out.textContent = e.message;
    out.className = 'error';
  }
});

start();
