'use strict';
// pusher-js's HTTP fallbacks on three nodes behind a load balancer without
// sticky sessions (docs/fallbacks.md, "Behind a load balancer"): a
// round-robin TCP proxy sends each new connection, so each request of a
// session, to the next node. The session lives on the node that got its
// first request, and the others forward its requests there. Over
// xhr_streaming and xhr_polling, a client through the proxy subscribes,
// receives API publishes sent through every node, exchanges client events
// with a WebSocket client on another node, and is terminated; every event
// arrives exactly once, and API publishes in each node's order.

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const { describeCluster } = require('../lib/cluster');
const { startRoundRobin } = require('../lib/roundrobin');
const { uniqueName } = require('../lib/suite');
const { subscribe, received, sdk } = require('../lib/clients');
const { waitFor } = require('../lib/poll');
const { authedClient, waitEvents, marker, pusherErrors, signIn } = require('../lib/features');

const APPS = [{ id: '1', key: 'key-1', secret: 'secret-1', client_events: true }];
const FALLBACKS = ['xhr_streaming', 'xhr_polling'];

describeCluster('cluster: HTTP fallbacks behind a round-robin proxy', { apps: APPS }, (test, ctx) => {
  let lb;
  before(async () => { if (ctx.nodes) lb = await startRoundRobin(ctx.nodes); });
  after(async () => { if (lb) await lb.close(); });

  // fallback opens a pusher-js client over transport through the proxy.
  const fallback = async (transport, params = {}) => {
    const pusher = { httpHost: lb.host, httpPort: lb.port, httpsPort: lb.port, enabledTransports: [transport] };
    const client = await authedClient(ctx.at(0), params, { pusher });
    assert.equal(client.connection.connection.transport.name, transport);
    return client;
  };

  // spread checks that the proxy sent the session's connections (counted
  // since from) to more than one node: the first opened the session, so a
  // later one reached a node that had to forward it. pusher-js keeps its
  // connections alive, so a session may use as few as two.
  const spread = (from) => {
    const nodes = lb.counts.filter((n, i) => n > from[i]).length;
    assert.ok(nodes >= 2, `connections on one node only (counts ${JSON.stringify(lb.counts)} from ${JSON.stringify(from)})`);
  };

  for (const tr of FALLBACKS) {
    test(`${tr}: API publishes through every node arrive once, in order per node`, async () => {
      const from = [...lb.counts];
      const client = await fallback(tr);
      const ch = await subscribe(client, uniqueName('public-news'));
      for (let n = 1; n <= 9; n += 1) await sdk(ctx.nodes[n % 3]).trigger(ch.name, 'story', { n, via: n % 3 });
      await waitEvents(ch, 'story', 9);
      await marker(sdk(ctx.nodes[1]), ch.name, [ch]);
      const got = received(ch, 'story');
      assert.deepEqual(got.map((d) => d.n).sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // The cluster keeps publish order per publisher (docs/cluster.md); two
      // nodes' publishes may interleave.
      for (const via of [0, 1, 2]) {
        const mine = got.filter((d) => d.via === via).map((d) => d.n);
        assert.deepEqual(mine, [...mine].sort((x, y) => x - y), `publishes through node ${via + 1}`);
      }
      spread(from);
      assert.equal(client.connection.state, 'connected');
    });

    test(`${tr}: client events both ways with a WebSocket client on another node`, async () => {
      const name = uniqueName('private-room');
      const ws = await subscribe(await authedClient(ctx.at(2), {}), name);
      const from = [...lb.counts];
      const fb = await subscribe(await fallback(tr), name);
      for (let n = 1; n <= 3; n += 1) fb.trigger('client-typing', { from: 'fb', n });
      ws.trigger('client-typing', { from: 'ws' });
      // Each client event is its own xhr_send, which pusher-js sends without
      // waiting for the one before: through different nodes they may overtake.
      assert.deepEqual((await waitEvents(ws, 'client-typing', 3)).map((d) => d.n).sort(), [1, 2, 3]);
      assert.deepEqual(await waitEvents(fb, 'client-typing'), [{ from: 'ws' }]);
      await marker(sdk(ctx.nodes[0]), name, [fb, ws]);
      assert.equal(received(ws, 'client-typing').length, 3);
      assert.equal(received(fb, 'client-typing').length, 1, 'a client event is not echoed to its sender');
      spread(from);
    });

    test(`${tr}: terminate through any node closes the session with 4009`, async () => {
      const user = uniqueName(`user-${tr}`);
      const client = await fallback(tr, { user_id: user });
      await signIn(client);
      const got = [];
      client.user.bind('notice', (d) => got.push(d));
      await sdk(ctx.nodes[1]).sendToUser(user, 'notice', { text: 'hi' });
      await waitFor(() => got.length === 1, { what: 'sendToUser over the forwarded fallback' });
      assert.equal((await sdk(ctx.nodes[2]).terminateUserConnections(user)).status, 200);
      await waitFor(() => pusherErrors(client).some((e) => e.code === 4009), {
        what: `pusher:error 4009 (states ${JSON.stringify(client.seen.states)})`,
      });
      await waitFor(() => client.connection.state !== 'connected', { what: 'the session ended' });
      assert.deepEqual(got, [{ text: 'hi' }]);
    });
  }
});
