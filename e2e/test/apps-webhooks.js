'use strict';
// Webhooks of an app kept in a database (docs/apps.md, "Webhooks from the
// table"): the app, created through the admin API into soketi's table with
// a webhooks column, sends its presence channel's events, each request
// checked with the `pusher` SDK's webhook(...).isValid(). Required by
// apps-postgres.test.js and apps-mariadb.test.js, which choose the database.

const assert = require('node:assert/strict');
const { describe, it, before, after, afterEach } = require('node:test');
const { startRoost, TRANSPORTS } = require('../lib/roost');
const { Clients, subscribe } = require('../lib/clients');
const { withStderr, uniqueName } = require('../lib/suite');
const { startAuthEndpoint } = require('../lib/backend');
const { authedClient } = require('../lib/features');
const { waitFor } = require('../lib/poll');
const { startReceiver, on, waitHooks } = require('../lib/webhooks');

const APP = { id: 'db-hooks', key: 'key-db-hooks', secret: 'secret-db-hooks', client_events: true };
const TYPES = ['channel_occupied', 'channel_vacated', 'member_added', 'member_removed', 'client_event'];

for (const transport of TRANSPORTS) {
  describe(`webhooks of a database app [${process.env.E2E_APPS_DB}, ${transport}]`, () => {
    const ctx = { transport };
    before(async () => {
      ctx.hooks = await startReceiver([APP]);
      ctx.server = await startRoost({ apps: [{ ...APP, webhooks: [{ url: ctx.hooks.url(), event_types: TYPES }] }], transport });
      ctx.auth = await startAuthEndpoint(ctx.server);
      ctx.clients = new Clients(ctx.server);
    });
    afterEach(() => assert.deepEqual(ctx.hooks.invalid, [], 'every request must pass pusher.webhook(req).isValid()'));
    after(async () => {
      if (ctx.clients) await ctx.clients.closeAll();
      if (ctx.auth) await ctx.auth.close();
      if (ctx.server) await ctx.server.stop();
      if (ctx.hooks) await ctx.hooks.close();
    });

    it('a presence channel\'s events arrive signed with the app secret', withStderr(ctx, async () => {
      const name = uniqueName('presence-db');
      const alice = await authedClient(ctx, { user_id: 'alice', user_info: JSON.stringify({ name: 'alice' }) });
      const room = await subscribe(alice, name);
      room.trigger('client-typing', { on: true });
      await waitHooks(ctx.hooks, name, ['channel_occupied', 'member_added alice', 'client_event alice']);
      alice.disconnect();
      await waitFor(() => alice.connection.state === 'disconnected', { what: 'pusher-js disconnected' });
      await waitHooks(ctx.hooks, name, ['member_removed alice', 'channel_vacated'], 10000);
      assert.deepEqual(on(ctx.hooks, name),
        ['channel_occupied', 'member_added alice', 'client_event alice', 'member_removed alice', 'channel_vacated']);
    }));
  });
}
