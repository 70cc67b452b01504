'use strict';
// Signed-in users across a three-node cluster over Redis (docs/protocol.md
// "User sign-in and the watchlist", "The HTTP API"): sendToUser through node 3
// reaches the user's tabs on nodes 1 and 2, terminateUserConnections closes
// them on every node and nobody else's, and the watchlist reports a user online
// at their first connection anywhere and offline after their last.

const assert = require('node:assert/strict');
const { describeCluster } = require('../lib/cluster');
const { sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { authedClient, signIn } = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];

let users = 0;

// uniqueUser returns a user id no other test in this process uses.
function uniqueUser(name) {
  users += 1;
  return `${name}-${process.pid}-${users}`;
}

// signedIn opens a pusher-js client on node i, signs it in as id (with a
// watchlist, if any) and records what reaches the user: client.userEvents
// (sendToUser events) and client.watch (watchlist events).
async function signedIn(ctx, i, id, watchlist) {
  const params = { user_id: id };
  if (watchlist) params.watchlist = watchlist.join(',');
  const client = await authedClient(ctx.at(i), params);
  client.userEvents = [];
  client.watch = [];
  client.user.bind_global((event, data) => client.userEvents.push({ event, data }));
  for (const name of ['online', 'offline']) {
    client.user.watchlist.bind(name, (e) => client.watch.push({ name, ids: [...e.user_ids].sort() }));
  }
  await signIn(client);
  return client;
}

// userEvent waits until client got the sendToUser event named event.
function userEvent(client, event) {
  return waitFor(() => client.userEvents.find((e) => e.event === event), {
    what: `${event} at ${client.connection.socket_id}; got ${JSON.stringify(client.userEvents)}`,
  }).then((e) => e.data);
}

// watched waits until client's watchlist events include want ({name, ids}).
function watched(client, want) {
  return waitFor(() => client.watch.some((w) => w.name === want.name &&
    JSON.stringify(w.ids) === JSON.stringify(want.ids)), {
    what: `watchlist ${JSON.stringify(want)}; got ${JSON.stringify(client.watch)}`,
  });
}

// closeClient disconnects a pusher-js client and waits until it is closed.
async function closeClient(client) {
  client.disconnect();
  await waitFor(() => client.connection.state === 'disconnected', { what: 'pusher-js disconnected' });
}

// count returns how many of client's watchlist events equal want.
function count(client, want) {
  return client.watch.filter((w) => w.name === want.name && JSON.stringify(w.ids) === JSON.stringify(want.ids)).length;
}

// sendMarker sends a fresh event to user id through api and waits until
// every client in at has it: what the server sent them earlier has arrived.
let markers = 0;
async function sendMarker(api, id, at) {
  markers += 1;
  const event = `user-marker-${markers}`;
  assert.equal((await api.sendToUser(id, event, { markers })).status, 200);
  for (const c of at) await userEvent(c, event);
}

describeCluster('cluster: signed-in users across nodes', { apps: APPS }, (test) => {
  test('sendToUser through node 3 reaches the user\'s tabs on nodes 1 and 2, and nobody else', async (ctx) => {
    const [u, other] = [uniqueUser('u'), uniqueUser('other')];
    const tabs = [await signedIn(ctx, 0, u), await signedIn(ctx, 1, u)];
    const bystander = await signedIn(ctx, 0, other);
    const api = sdk(ctx.nodes[2]);
    assert.equal((await api.sendToUser(u, 'hello', { text: 'hi ✓' })).status, 200);
    for (const tab of tabs) assert.deepEqual(await userEvent(tab, 'hello'), { text: 'hi ✓' });
    await sendMarker(api, other, [bystander]);
    await sendMarker(api, u, tabs);
    assert.deepEqual(bystander.userEvents.filter((e) => e.event === 'hello'), []);
    for (const tab of tabs) assert.equal(tab.userEvents.filter((e) => e.event === 'hello').length, 1);
  });

  test('terminateUserConnections through node 3 closes the user\'s tabs on nodes 1 and 2 only', async (ctx) => {
    const [u, other] = [uniqueUser('doomed'), uniqueUser('spared')];
    const tabs = [await signedIn(ctx, 0, u), await signedIn(ctx, 1, u)];
    const spared = [await signedIn(ctx, 0, other), await signedIn(ctx, 1, other)];
    const before = tabs.map((t) => t.connection.socket_id);
    const sparedIds = spared.map((t) => t.connection.socket_id);
    const raw = await ctx.clients[1].raw();
    const auth = sdk(ctx.nodes[1]).authenticateUser(raw.socketId, { id: u });
    raw.send({ event: 'pusher:signin', data: auth });
    await raw.next('pusher:signin_success');

    assert.equal((await sdk(ctx.nodes[2]).terminateUserConnections(u)).status, 200);
    const gone = (tab, i) => tab.connection.socket_id !== before[i] ||
      tab.seen.states.lastIndexOf('connected') < tab.seen.states.length - 1;
    const state = () => `pusher-js tab on node 1 closed: ${gone(tabs[0], 0)}, on node 2: ` +
      `${gone(tabs[1], 1)}; raw tab on node 2 ${raw.closeText()}`;
    await waitFor(() => tabs.every(gone) && raw.close !== null, { what: `every connection of ${u} closed` })
      .catch((err) => { throw new Error(`${err.message}; ${state()}`); });
    // isOpen is false from the close frame on; the close event (and its code) follows.
    const closed = await raw.closed;
    assert.ok(closed.code >= 4000, `closed with a Pusher code: ${JSON.stringify(closed)}`);
    await sendMarker(sdk(ctx.nodes[2]), other, spared);
    for (const [i, c] of spared.entries()) {
      assert.equal(c.connection.socket_id, sparedIds[i], `the other user's tab on node ${i + 1} stays connected`);
      assert.deepEqual(c.seen.states, ['connected'], 'never disconnected');
    }
  });

  test('watchlist: online at the first connection on any node, offline after the last', async (ctx) => {
    const [x, y] = [uniqueUser('x'), uniqueUser('y')];
    const xTab = await signedIn(ctx, 1, x);
    const watcher = await signedIn(ctx, 0, uniqueUser('watcher'), [x, y]);
    await watched(watcher, { name: 'online', ids: [x] });

    const yTab1 = await signedIn(ctx, 2, y);
    await watched(watcher, { name: 'online', ids: [y] });
    const yTab2 = await signedIn(ctx, 0, y);
    await closeClient(yTab1);
    await sendMarker(sdk(ctx.nodes[0]), watcher.user.user_data.id, [watcher]);
    assert.equal(count(watcher, { name: 'online', ids: [y] }), 1, 'a second tab is not a second online');
    assert.equal(count(watcher, { name: 'offline', ids: [y] }), 0, 'y is still online on node 1');
    // A late offline for yTab1 would still be caught by the last assertion.

    await closeClient(yTab2);
    await watched(watcher, { name: 'offline', ids: [y] });
    await closeClient(xTab);
    await watched(watcher, { name: 'offline', ids: [x] });
    await sendMarker(sdk(ctx.nodes[0]), watcher.user.user_data.id, [watcher]);
    assert.equal(count(watcher, { name: 'offline', ids: [y] }), 1, 'one offline for two tabs');
  });
});
