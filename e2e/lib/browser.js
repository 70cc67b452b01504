'use strict';
// browser.js starts Debian's Chromium, headless, through playwright-core
// (which drives a browser it is given and downloads none). Each launch has a
// fresh profile directory, removed on close. The flags keep Chromium from
// reaching for the network on its own (updates, sync, QUIC probes), which
// fails on a machine without internet access.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const tls = require('./tls');

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** available reports whether the Chromium binary is installed. */
function available() {
  return fs.existsSync(CHROMIUM);
}

/**
 * launch starts Chromium with a fresh profile and returns
 * { context, page, close() }; viewport is { width, height }.
 */
async function launch(viewport = { width: 1280, height: 900 }) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'roost-chromium-'));
  // Under `npm run test:tls` roost serves the run's own self-signed
  // certificate: the Node clients trust it through NODE_EXTRA_CA_CERTS,
  // Chromium (which reads only its own store) is told to accept it.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport,
    ignoreHTTPSErrors: tls.enabled(),
  });
  const page = context.pages()[0] || await context.newPage();
  return {
    context, page,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

module.exports = { launch, available, CHROMIUM };
