'use strict';
// The connect, private-channel, presence and publish suites once more, with
// every app kept in mariadb (docs/apps.md) instead of the config file: roost
// reads them lazily from soketi's table, created through the admin API.

process.env.E2E_APPS_DB = 'mariadb';
require('./connect.test');
require('./private.test');
require('./presence.test');
require('./publish.test');
require('./apps-webhooks');
