'use strict';
// appsdb.js keeps a test server's apps in a real database (docs/apps.md)
// instead of its config file, when E2E_APPS_DB is "postgres" or "mariadb":
// a fresh database per server with soketi's table (the SQL file the Go
// tests use), filled through roost's own admin API once it serves, and
// dropped when it stops. PostgreSQL is reached as user postgres and MariaDB
// as root, on 127.0.0.1 at their standard ports, as in the Go tests.

const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const KIND = process.env.E2E_APPS_DB || '';
const SCHEMAS = path.resolve(__dirname, '..', '..', 'internal', 'testutil', 'testdata');

const KINDS = {
  postgres: {
    schema: 'soketi_postgres.sql',
    url: (db) => `postgres://postgres@127.0.0.1:5432/${db}?sslmode=disable`,
    run: (db, sql) => execFileSync('psql',
      ['-h', '127.0.0.1', '-U', 'postgres', '-d', db || 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', sql]),
    drop: (db) => `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`,
  },
  mariadb: {
    schema: 'soketi_mysql.sql',
    url: (db) => `mysql://root@127.0.0.1:3306/${db}`,
    run: (db, sql) => execFileSync('mariadb', ['-h', '127.0.0.1', '-uroot', ...(db ? [db] : []), '-e', sql]),
    drop: (db) => `DROP DATABASE IF EXISTS ${db}`,
  },
};

/** enabled reports whether servers keep their apps in a database. */
function enabled() {
  if (KIND && !KINDS[KIND]) throw new Error(`E2E_APPS_DB=${KIND}: want postgres or mariadb`);
  return KIND !== '';
}

/**
 * create makes a database with soketi's table and returns what roost needs
 * to serve it: { args, env, fill(url, apps), drop() }.
 */
function create() {
  const kind = KINDS[KIND];
  const db = `roost_e2e_${crypto.randomBytes(6).toString('hex')}`;
  const token = crypto.randomBytes(16).toString('hex');
  kind.run('', `CREATE DATABASE ${db}`);
  kind.run(db, fs.readFileSync(path.join(SCHEMAS, kind.schema), 'utf8'));
  let dropped = false;
  return {
    args: ['--apps-url', kind.url(db)],
    env: { ROOST_ADMIN_TOKEN: token },
    // fill creates each app through POST /admin/apps.
    async fill(url, apps) {
      for (const app of apps) {
        const res = await fetch(`${url}/admin/apps`, {
          method: 'POST', body: JSON.stringify(app),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
        if (res.status !== 201) throw new Error(`creating app ${app.id}: ${res.status} ${await res.text()}`);
      }
    },
    drop() {
      if (!dropped) kind.run('', kind.drop(db));
      dropped = true;
    },
  };
}

module.exports = { enabled, create };
