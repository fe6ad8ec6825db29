import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseApproveUrl } from './account.ts';

const TICKET = 'tK3_q-9'.repeat(6).slice(0, 43);

test('an approve URL gives its origin and its ticket', () => {
  assert.deepEqual(parseApproveUrl(`https://rail.example.org/account/approve?t=${TICKET}`), {
    origin: 'https://rail.example.org',
    ticket: TICKET,
  });
  assert.deepEqual(parseApproveUrl(`http://127.0.0.1:3000/account/approve?t=${TICKET}`), {
    origin: 'http://127.0.0.1:3000',
    ticket: TICKET,
  });
});

test('anything but an approve URL with one well-formed ticket is refused, saying why', () => {
  const base = 'https://rail.example.org';
  for (const [url, why] of [
    ['not a url', /is not an approve URL/],
    [`ftp://rail.example.org/account/approve?t=${TICKET}`, /not an approve URL/],
    [`https://ada:secret@rail.example.org/account/approve?t=${TICKET}`, /no user name or password/],
    [`${base}/account/signin?t=${TICKET}`, /path is \/account\/approve/],
    [`${base}/account/approve/?t=${TICKET}`, /path is \/account\/approve/],
    [`${base}/prefix/account/approve?t=${TICKET}`, /path is \/account\/approve/],
    [`${base}/account/approve`, /one sign-in ticket/],
    [`${base}/account/approve?t=`, /one sign-in ticket/],
    [`${base}/account/approve?t=short`, /one sign-in ticket/],
    [`${base}/account/approve?t=${'C'.repeat(257)}`, /one sign-in ticket/],
    [`${base}/account/approve?t=${TICKET.slice(0, 40)}%3Cb%3E`, /one sign-in ticket/],
    [`${base}/account/approve?t=${TICKET}&t=${TICKET}`, /one sign-in ticket/],
    [`${base}/account/approve?t=${TICKET}&next=/elsewhere`, /besides its ticket/],
    [`${base}/account/approve?t=${TICKET}#more`, /besides its ticket/],
    [`${base}/account/approve?t=${TICKET}&pad=${'x'.repeat(2048)}`, /longer than 2048 characters/],
  ] as const) {
    assert.throws(() => parseApproveUrl(url), why, url.slice(0, 120));
  }
});
