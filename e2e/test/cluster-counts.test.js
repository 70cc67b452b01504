'use strict';
// Subscription counts across a three-node cluster (docs/protocol.md
// "Subscription counts", docs/cluster.md "How the cluster keeps one-node
// semantics"): two pusher-js clients on two nodes subscribing to one channel
// at the same moment each read the shared count before the other node has
// written its change; both must still end with the cluster's count, 2.

const assert = require('node:assert/strict');
const { describeCluster } = require('../lib/cluster');
const { uniqueName } = require('../lib/suite');
const { subscribe, received } = require('../lib/clients');
const { waitFor } = require('../lib/poll');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', subscription_count: true }];
const COUNT = 'pusher:subscription_count';

// countsAt lists the subscription counts channel was told, in order.
function countsAt(channel) {
  return received(channel, COUNT).map((d) => d.subscription_count);
}

// waitLatest waits until the latest count channel was told is n.
function waitLatest(channel, n, where) {
  return waitFor(() => {
    const all = countsAt(channel);
    return all.length > 0 && all[all.length - 1] === n;
  }, { what: `${COUNT} ${n} on ${channel.name} at ${where}; got ${JSON.stringify(countsAt(channel))}` });
}

describeCluster('cluster: subscription counts', { apps: APPS }, (test) => {
  test('two subscriptions racing on two nodes both end with the count 2', async (ctx) => {
    const name = uniqueName('raced');
    const [a, b] = await Promise.all([ctx.clients[0].pusherJS(), ctx.clients[1].pusherJS()]);
    const [ca, cb] = await Promise.all([subscribe(a, name), subscribe(b, name)]);
    await Promise.all([waitLatest(ca, 2, 'node 1'), waitLatest(cb, 2, 'node 2')]);
    assert.equal(ca.subscriptionCount, 2, 'pusher-js keeps the latest count');
    assert.equal(cb.subscriptionCount, 2);
  });

  test('a third subscription and an unsubscribe on the third node are counted everywhere', async (ctx) => {
    const name = uniqueName('counted');
    const clients = await Promise.all(ctx.clients.map((c) => c.pusherJS()));
    const chans = await Promise.all(clients.map((c) => subscribe(c, name)));
    await Promise.all(chans.map((ch, i) => waitLatest(ch, 3, `node ${i + 1}`)));
    clients[2].unsubscribe(name);
    await Promise.all(chans.slice(0, 2).map((ch, i) => waitLatest(ch, 2, `node ${i + 1}`)));
  });
});
