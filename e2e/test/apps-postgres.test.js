'use strict';
// The connect, private-channel, presence and publish suites once more, with
// every app kept in postgres (docs/apps.md) instead of the config file: roost
// reads them lazily from soketi's table, created through the admin API.

process.env.E2E_APPS_DB = 'postgres';
require('./connect.test');
require('./private.test');
require('./presence.test');
require('./publish.test');
require('./apps-webhooks');
