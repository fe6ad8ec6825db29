import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextAttemptAt } from './webhook-schedule.ts';
import { signBody, verifyBody } from './webhook-signature.ts';

test('a retry comes at most its delay after a failure, and at least four fifths of it; then none', () => {
  const schedule = [10_000, 60_000];
  assert.equal(nextAttemptAt(schedule, 1, 1000, 0), 11_000, 'no jitter: the delay as written');
  assert.equal(nextAttemptAt(schedule, 1, 1000, 1), 9000, 'the most jitter takes a fifth off');
  assert.equal(nextAttemptAt(schedule, 2, 0, 0.5), 54_000);
  assert.equal(nextAttemptAt(schedule, 3, 0, 0.5), null, 'after the last retry the delivery is dead');
});

test('a signature is sha256= and the hex HMAC of the exact bytes; anything else is refused', () => {
  const secret = 'whsec_example';
  const body = '{"id":"dlv_x","type":"webhook.ping"}';
  const header = signBody(secret, body);
  assert.match(header, /^sha256=[0-9a-f]{64}$/);
  assert.equal(verifyBody(secret, body, header), true);
  assert.equal(verifyBody(secret, Buffer.from(body), header), true, 'bytes or text alike');
  assert.equal(verifyBody(secret, `${body}\n`, header), false);
  assert.equal(verifyBody('whsec_other', body, header), false);
  assert.equal(verifyBody(secret, body, header.toUpperCase()), false);
  assert.equal(verifyBody(secret, body, header.slice(0, -2)), false);
  assert.equal(verifyBody(secret, body, `sha1=${header.slice(7)}`), false);
  assert.equal(verifyBody(secret, body, undefined), false);
});
