'use strict';
// The hand-written signer must match the Pusher docs' test vectors (also in
// docs/protocol.md, "The HTTP API") and the official SDK, or the 401 tests
// would prove nothing.

const test = require('node:test');
const assert = require('node:assert/strict');
const { signedQuery, hmacHex } = require('../lib/sign');
const { createSignedQueryString } = require('pusher/lib/requests');
const Token = require('pusher/lib/token');

const KEY = '278d425bdf160c739803';
const SECRET = '7ad3773142a6692b25b8';

test('channel auth vector from the Pusher docs', () => {
  assert.equal(hmacHex(SECRET, '1234.1234:private-foobar'),
    '58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4');
});

test('REST signature vector from the Pusher docs', () => {
  const body = '{"name":"foo","channels":["project-3"],"data":"{\\"some\\":\\"data\\"}"}';
  const q = signedQuery({
    key: KEY, secret: SECRET, method: 'POST', path: '/apps/3/events', body, timestamp: 1353088179,
  });
  assert.match(q.query, /body_md5=ec365a775a4cd0599faeb73354201b6f/);
  assert.equal(q.signature, 'da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c');
});

test('signer agrees with the pusher SDK', (t) => {
  const now = 1700000000;
  t.mock.method(Date, 'now', () => now * 1000);
  const body = JSON.stringify({ name: 'e', channels: ['a'], data: 'x' });
  const req = { method: 'POST', path: '/apps/1/events', body, params: { info: 'user_count' } };
  const theirs = createSignedQueryString(new Token('key-1', 'secret-1'), req);
  const ours = signedQuery({ key: 'key-1', secret: 'secret-1', ...req, timestamp: now });
  assert.equal(ours.query, theirs);
});
