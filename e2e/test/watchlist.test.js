'use strict';
// Watchlist (docs/protocol.md "User sign-in and the watchlist", Pusher docs
// "Watchlist events"): a user whose user_data carries watchlist: [ids] gets
// pusher_internal:watchlist_events {events: [{name, user_ids}]}, which
// pusher-js turns into pusher.user.watchlist 'online' / 'offline' events, at
// sign-in and whenever a watched user comes online (first connection) or goes
// offline (last connection). More than 100 ids: pusher:error 4302.

const assert = require('node:assert/strict');
const { describeServer, uniqueName } = require('../lib/suite');
const { subscribe, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { useAuthEndpoint, authedClient, signIn, waitConnections } = require('../lib/features');

const WATCHLIST_TOO_BIG = 4302;

let users = 0;
// userId returns a user id unique in this process (servers outlive tests).
function userId(name) {
  users += 1;
  return `${name}-${users}`;
}

// watcher opens a pusher-js client for id watching ids, records its
// watchlist events (bound before sign-in, as apps do) and signs it in.
async function watcher(ctx, id, ids) {
  const client = await authedClient(ctx, { user_id: id, watchlist: ids.join(',') });
  const seen = [];
  client.user.watchlist.bind('online', (e) => seen.push({ name: 'online', ids: [...e.user_ids].sort() }));
  client.user.watchlist.bind('offline', (e) => seen.push({ name: 'offline', ids: [...e.user_ids].sort() }));
  await signIn(client);
  return { client, seen };
}

// user opens a pusher-js client for id and signs it in.
async function user(ctx, id) {
  const client = await authedClient(ctx, { user_id: id });
  await signIn(client);
  return client;
}

// mentions lists the events in seen that name id.
function mentions(seen, id) {
  return seen.filter((e) => e.ids.includes(id));
}

// waitMention waits until seen has n events naming id and returns them.
async function waitMention(seen, id, n = 1) {
  await waitFor(() => mentions(seen, id).length >= n, {
    what: `${n} watchlist event(s) about ${id}; got ${JSON.stringify(seen)}`,
  });
  return mentions(seen, id);
}

// trackedTab signs id in on a fresh tab that also joins a public channel, so
// the test can see through the HTTP API when the server has let that tab go.
async function trackedTab(ctx, id, channel) {
  const client = await user(ctx, id);
  await subscribe(client, channel);
  return client;
}

describeServer('watchlist', {}, (test, ctx) => {
  useAuthEndpoint(ctx);

  test('a watched user already online is reported at sign-in', async () => {
    const [b, c] = [userId('b'), userId('c')];
    await user(ctx, b);
    const a = await watcher(ctx, userId('a'), [b, c]);
    const about = await waitMention(a.seen, b);
    assert.deepEqual(about[0].name, 'online', JSON.stringify(a.seen));
    assert.deepEqual(mentions(a.seen, c), [], 'an offline user is not reported online');
  });

  test('online when a watched user signs in, offline when it disconnects', async () => {
    const [b, stranger] = [userId('b'), userId('stranger')];
    const a = await watcher(ctx, userId('a'), [b]);
    const s = await user(ctx, stranger);
    const bClient = await user(ctx, b);
    assert.deepEqual(await waitMention(a.seen, b), [{ name: 'online', ids: [b] }]);
    bClient.disconnect();
    assert.deepEqual(await waitMention(a.seen, b, 2), [{ name: 'online', ids: [b] }, { name: 'offline', ids: [b] }]);
    s.disconnect();
    await user(ctx, b); // comes back: a later event about b
    await waitMention(a.seen, b, 3);
    assert.deepEqual(mentions(a.seen, stranger), [], 'users not on the watchlist are never reported');
  });

  test('two tabs: online once, offline only when the last tab closes', async ({ server }) => {
    const [b, c] = [userId('b'), userId('c')];
    const track = uniqueName('watch-track');
    const a = await watcher(ctx, userId('a'), [b, c]);
    const tab1 = await trackedTab(ctx, b, track);
    await waitMention(a.seen, b);
    const tab2 = await trackedTab(ctx, b, track);
    const cClient = await user(ctx, c); // signs in after tab2 did: its online comes later
    await waitMention(a.seen, c);
    assert.deepEqual(mentions(a.seen, b), [{ name: 'online', ids: [b] }], 'a second tab is not a second online');

    tab1.disconnect();
    await waitConnections(server, track, 1);
    cClient.disconnect(); // its offline comes after anything tab1's close caused
    await waitMention(a.seen, c, 2);
    assert.deepEqual(mentions(a.seen, b), [{ name: 'online', ids: [b] }], 'b still has a tab open');

    tab2.disconnect();
    assert.deepEqual(await waitMention(a.seen, b, 2), [{ name: 'online', ids: [b] }, { name: 'offline', ids: [b] }]);
  });

  test(`more than 100 watched ids -> pusher:error ${WATCHLIST_TOO_BIG}`, async ({ server, clients }) => {
    const raw = await clients.raw();
    const ids = Array.from({ length: 101 }, (_, i) => `w${i}`);
    const signed = sdk(server).authenticateUser(raw.socketId, { id: userId('greedy'), watchlist: ids });
    raw.send({ event: 'pusher:signin', data: signed });
    const err = await raw.next('pusher:error');
    assert.equal(err.payload.code, WATCHLIST_TOO_BIG, err.text);
  });

  test('exactly 100 watched ids are accepted', async ({ server, clients }) => {
    const raw = await clients.raw();
    const ids = Array.from({ length: 100 }, (_, i) => `ok${i}`);
    const signed = sdk(server).authenticateUser(raw.socketId, { id: userId('busy'), watchlist: ids });
    raw.send({ event: 'pusher:signin', data: signed });
    await raw.next('pusher:signin_success');
    const later = uniqueName('after-signin');
    raw.send({ event: 'pusher:subscribe', data: { channel: later, auth: '' } });
    await raw.next((f) => f.event === 'pusher_internal:subscription_succeeded' && f.channel === later);
    assert.equal(raw.find('pusher:error'), undefined, raw.describe());
  });
});
