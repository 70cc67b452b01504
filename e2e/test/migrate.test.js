'use strict';
// The migration guides in docs/migrate, followed as written: roost runs with
// the guide's roost.env, Laravel Echo is built by the guide's echo.js from
// the guide's .env (only the host, port and scheme point at the roost under
// test), and a broadcast sent the way Laravel's broadcaster sends it (the
// Pusher HTTP API, configured from the same .env as config/broadcasting.php
// reads it) reaches Echo's listener.

const assert = require('node:assert/strict');
const PusherJS = require('pusher-js');
const PusherSDK = require('pusher');
const { describeServer, uniqueName } = require('../lib/suite');
const { waitFor } = require('../lib/poll');
const { loadEcho } = require('../lib/features');
const { readGuide, parseDotenv, runEchoSetup } = require('../lib/guide');

const GUIDES = ['reverb', 'soketi', 'pusher', 'laravel-websockets'];

// prefixOf returns the .env prefix of the broadcast connection the guide
// configures: REVERB_ for `reverb`, PUSHER_ for `pusher`.
function prefixOf(env) {
  const connection = env.BROADCAST_CONNECTION || env.BROADCAST_DRIVER;
  assert.ok(['reverb', 'pusher'].includes(connection), `broadcast connection ${connection}`);
  return { connection, prefix: `${connection.toUpperCase()}_` };
}

// laravelEnv reads the guide's .env with the server's address in place of
// the guide's host, port and scheme (https when the test's roost serves TLS).
function laravelEnv(guide, server, prefix) {
  return parseDotenv(guide.laravelEnv, {
    [`${prefix}HOST`]: server.host, [`${prefix}PORT`]: server.port, [`${prefix}SCHEME`]: server.tls ? 'https' : 'http',
  });
}

// broadcaster is the Pusher HTTP client that Laravel's reverb and pusher
// broadcasters configure from config/broadcasting.php and .env.
function broadcaster(env, prefix) {
  return new PusherSDK({
    appId: env[`${prefix}APP_ID`], key: env[`${prefix}APP_KEY`], secret: env[`${prefix}APP_SECRET`],
    host: env[`${prefix}HOST`], port: env[`${prefix}PORT`] || '443',
    useTLS: (env[`${prefix}SCHEME`] || 'https') === 'https',
  });
}

for (const name of GUIDES) {
  const guide = readGuide(name);
  const roostEnv = parseDotenv(guide.roostEnv);

  describeServer(`docs/migrate/${name}.md`, { env: roostEnv }, (test) => {
    test('roost.env defines the app the Laravel .env uses', ({ server }) => {
      const { prefix } = prefixOf(parseDotenv(guide.laravelEnv));
      const env = laravelEnv(guide, server, prefix);
      for (const part of ['ID', 'KEY', 'SECRET']) {
        assert.equal(roostEnv[`ROOST_APP_${part}`], env[`${prefix}APP_${part}`], `ROOST_APP_${part}`);
      }
    });

    test('Laravel Echo set up as the guide says receives a broadcast', async ({ server }) => {
      const { connection, prefix } = prefixOf(parseDotenv(guide.laravelEnv));
      const env = laravelEnv(guide, server, prefix);
      const echo = runEchoSetup(guide.echoJs, env, { Echo: await loadEcho(), Pusher: PusherJS });
      try {
        assert.equal(echo.options.broadcaster, connection, 'Echo\'s broadcaster is the .env\'s connection');
        const orders = uniqueName('orders');
        const got = [];
        echo.channel(orders).listen('OrderShipped', (e) => got.push(e));
        const pusher = echo.connector.pusher;
        await waitFor(() => pusher.channel(orders) && pusher.channel(orders).subscribed, {
          what: `Echo subscribed to ${orders} (connection ${pusher.connection.state})`,
        });
        const res = await broadcaster(env, prefix).trigger(orders, 'App\\Events\\OrderShipped', { order: 42 });
        assert.equal(res.status, 200);
        await waitFor(() => got.length === 1, { what: `OrderShipped at Echo; got ${JSON.stringify(got)}` });
        assert.deepEqual(got, [{ order: 42 }]);
      } finally {
        echo.disconnect();
      }
    });
  });
}
