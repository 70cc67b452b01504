'use strict';
// roundrobin.js is a load balancer without sticky sessions, for the cluster
// fallback suite: a TCP proxy on a free loopback port that sends each new
// connection to the next of its targets in turn, and counts them.

const net = require('node:net');

/**
 * startRoundRobin listens on 127.0.0.1:0 and proxies each connection to
 * targets[i++ % n] ({ host, port }). Returns { host, port, counts, close }:
 * counts[i] is how many connections went to targets[i].
 */
async function startRoundRobin(targets) {
  let next = 0;
  const counts = targets.map(() => 0);
  const open = new Set();
  const server = net.createServer((client) => {
    const i = next++ % targets.length;
    counts[i] += 1;
    const upstream = net.connect(targets[i].port, targets[i].host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    host: '127.0.0.1',
    port: server.address().port,
    counts,
    close: () => new Promise((ok) => {
      for (const s of open) s.destroy();
      server.close(ok);
    }),
  };
}

module.exports = { startRoundRobin };
