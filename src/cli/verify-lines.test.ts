/**
 * `openrail verify` answers every line of the conformance line protocol, whatever the line holds:
 * a presentation nesting a header field 20,000 deep, or a line nesting deeper than any input,
 * gets its answer, and the lines after it are still judged (it used to exit on the first).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../test/helpers/process.ts';

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const deep = (n: number) => `${'['.repeat(n)}0${']'.repeat(n)}`;

test('every line gets an answer, in order, and the verifier exits 0', () => {
  const expected = { aud: 'a', nonce: 'n', vct: 'v', claims: [] };
  const presentation = `${b64(`{"alg":"ES256","typ":"dc+sd-jwt","kid":${deep(20_000)}}`)}.${b64('{"iss":"did:web:x"}')}.${b64(Buffer.alloc(64))}~`;
  const lines = [
    JSON.stringify({ id: 1, input: { presentation: 'x~', didDocument: { id: 'did:web:x' }, expected, now: 1 } }),
    JSON.stringify({ id: 2, input: { presentation, didDocument: { id: 'did:web:x' }, expected, now: 1 } }),
    `{"id":3,"input":${deep(30_000)}}`,
    JSON.stringify({ id: 4, input: { presentation: 'x~', didDocument: { id: 'did:web:x' }, expected, now: 1 } }),
  ];
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'openrail.js'), 'verify'], {
    input: `${lines.join('\n')}\n`,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const answers = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    answers.map((a) => a.id),
    [1, 2, 3, 4],
  );
  assert.equal(answers[1]?.verdict, 'reject');
  assert.equal(answers[1]?.failure, 'malformed_presentation');
  assert.match(String(answers[2]?.error), /nests deeper/);
  assert.equal(answers[3]?.verdict, answers[0]?.verdict, 'the line after them is judged as the first was');
});
