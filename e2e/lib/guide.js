'use strict';
// guide.js reads the migration guides in docs/migrate as a user would follow
// them: the fenced blocks tagged `dotenv roost.env` (roost's environment),
// `dotenv .env` (the Laravel app's) and `js resources/js/echo.js` (its Echo
// setup), so that a test can run exactly what a guide says.

const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('./roost');

const FENCE = /^```([^\n]*)\n([\s\S]*?)^```$/gm;

/** readGuide returns the tagged blocks of docs/migrate/NAME.md by tag. */
function readGuide(name) {
  const file = path.join(REPO_ROOT, 'docs', 'migrate', `${name}.md`);
  const blocks = {};
  for (const [, info, body] of fs.readFileSync(file, 'utf8').matchAll(FENCE)) {
    const tag = info.trim().split(/\s+/)[1];
    if (tag) blocks[tag] = body;
  }
  for (const tag of ['roost.env', '.env', 'resources/js/echo.js']) {
    if (!blocks[tag]) throw new Error(`${file} has no block tagged ${tag}`);
  }
  return { file, roostEnv: blocks['roost.env'], laravelEnv: blocks['.env'], echoJs: blocks['resources/js/echo.js'] };
}

/**
 * parseDotenv reads a .env file as Laravel's phpdotenv does for the forms
 * the guides use: NAME=value, quoted values, ${NAME} references in unquoted
 * and double-quoted values, # comments. overrides replace a variable's
 * value where it is defined, so later references see the override.
 */
function parseDotenv(text, overrides = {}) {
  const env = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (!m) throw new Error(`not a .env line: ${raw}`);
    const [, name, rest] = m;
    let value = rest;
    if (value.startsWith("'")) {
      value = value.slice(1, value.lastIndexOf("'"));
    } else {
      if (value.startsWith('"')) value = value.slice(1, value.lastIndexOf('"'));
      else value = value.replace(/\s+#.*$/, '');
      value = value.replace(/\$\{(\w+)\}/g, (_, ref) => env[ref] ?? '');
    }
    env[name] = name in overrides ? String(overrides[name]) : value;
  }
  return env;
}

/**
 * runEchoSetup runs a guide's echo.js the way Vite serves it to a browser:
 * its imports bound to laravel-echo and pusher-js, import.meta.env holding
 * the VITE_ variables, `window` a fresh object. It returns window.Echo.
 * Echo looks for the Pusher client on the global window, so one exists
 * while the setup runs.
 */
function runEchoSetup(js, env, { Echo, Pusher }) {
  const body = js.replace(/^import .*;$/gm, '').replace(/import\.meta\.env/g, 'viteEnv');
  const win = {};
  const vite = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('VITE_')));
  const hadWindow = 'window' in globalThis;
  globalThis.window = win;
  try {
    new Function('Echo', 'Pusher', 'window', 'viteEnv', body)(Echo, Pusher, win, vite);
  } finally {
    if (!hadWindow) delete globalThis.window;
  }
  if (!win.Echo) throw new Error('echo.js did not set window.Echo');
  return win.Echo;
}

module.exports = { readGuide, parseDotenv, runEchoSetup };
