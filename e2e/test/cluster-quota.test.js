'use strict';
// An app's connection limit across a three-node cluster (docs/cluster.md
// "Connection limits", docs/protocol.md "Refusals"): apps[].max_connections
// counts the app's connections on every node, so with the limit reached the
// next pusher-js client is refused with 4004 on any node, whichever nodes
// hold the others, and a disconnect anywhere frees a place. The nodes learn
// each other's counts within a fraction of a second, so each refusal is
// awaited by polling: a client let in before the figure arrived is closed
// again, and the next one tried.

const assert = require('node:assert/strict');
const { describeCluster } = require('../lib/cluster');
const { errorCode } = require('../lib/clients');
const { waitFor } = require('../lib/poll');

const LIMIT = 4;
const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', max_connections: LIMIT }];
const OVER_QUOTA = 4004;

// attempt opens a pusher-js client on node i and resolves once it is
// connected or refused: { client, refused }.
async function attempt(ctx, i) {
  const client = ctx.clients[i].pusherJSUnwaited();
  await waitFor(() => client.connection.state === 'connected' ||
    client.seen.errors.some((e) => errorCode(e) === OVER_QUOTA), {
    what: `pusher-js on node ${i + 1} connected or refused (states ${JSON.stringify(client.seen.states)})`,
  });
  return { client, refused: client.connection.state !== 'connected' };
}

// refusedOn waits until a new client on node i is refused with 4004 and
// gives up, as pusher-js does for 4000-4099; it returns how many clients
// were let in (and closed again) before the refusal.
async function refusedOn(ctx, i) {
  let admitted = 0;
  const refused = await waitFor(async () => {
    const { client, refused } = await attempt(ctx, i);
    if (refused) return client;
    admitted += 1;
    client.disconnect();
    return null;
  }, { what: `a client over the limit of ${LIMIT} refused with ${OVER_QUOTA} on node ${i + 1}`, interval: 50 });
  await waitFor(() => refused.connection.state === 'disconnected', {
    what: `pusher-js to give up on node ${i + 1}; states ${JSON.stringify(refused.seen.states)}`,
  });
  assert.ok(!refused.seen.states.includes('connected'), `states ${JSON.stringify(refused.seen.states)}`);
  return admitted;
}

describeCluster('cluster: apps[].max_connections', { apps: APPS }, (test) => {
  test(`${LIMIT} connections over three nodes: the next is refused with ${OVER_QUOTA} on every node, ` +
    'and a disconnect frees a place', async (ctx) => {
    const held = [];
    for (const i of [0, 1, 2, 0]) held.push(await ctx.clients[i].pusherJS());
    for (const i of [0, 1, 2]) await refusedOn(ctx, i);

    held[1].disconnect(); // node 2's only connection
    const { client, refused } = await waitFor(async () => {
      const a = await attempt(ctx, 2);
      return a.refused ? null : a;
    }, { what: 'a place freed by the disconnect on node 2, taken on node 3', interval: 50 });
    assert.equal(refused, false);
    held[1] = client;
    for (const i of [0, 1, 2]) await refusedOn(ctx, i);
    assert.ok(held.every((c) => c.connection.state === 'connected'), 'the held clients stay connected');
  });
});
