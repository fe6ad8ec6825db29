import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ID_PREFIXES, type IdKind, idMinter, idPattern, isId } from './ids.ts';

const KINDS = Object.keys(ID_PREFIXES) as IdKind[];

test('each kind has its own prefix, and what is minted is what is recognised, of that kind only', () => {
  const prefixes = Object.values(ID_PREFIXES);
  assert.equal(new Set(prefixes).size, prefixes.length, 'no prefix serves two kinds');
  let n = 0;
  const ids = idMinter(() => String(n++).padStart(22, 'A'));
  for (const kind of KINDS) {
    const id = ids.mint(kind);
    assert.ok(id.startsWith(`${ID_PREFIXES[kind]}_`), id);
    assert.ok(isId(kind, id), `${kind}: ${id}`);
    assert.match(id, new RegExp(idPattern(kind)));
    for (const other of KINDS) if (other !== kind) assert.equal(isId(other, id), false, `${id} is not a ${other}`);
  }
  assert.equal(isId('credential', 'crd_short'), false);
  assert.equal(isId('credential', `crd_${'a'.repeat(22)}\n`), false);
});

test('a source of randomness that does not answer 22 base64url characters is refused, not minted from', () => {
  for (const bad of ['', 'a'.repeat(21), 'a'.repeat(23), `${'a'.repeat(21)}+`, `${'a'.repeat(21)}/`]) {
    assert.throws(() => idMinter(() => bad).mint('offer'), /not 22 base64url characters/);
  }
});

/**
 * The registry is the only place an identifier's prefix is written: a prefix minted or matched by
 * hand elsewhere (a template `crd_${…}`, a pattern '^crd_…') fails here, naming the file.
 */
test('no source file mints or matches an identifier prefix by hand', () => {
  const src = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const files = (function walk(dir: string): string[] {
    return readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return walk(path);
      return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
    });
  })(src);
  const alternatives = Object.values(ID_PREFIXES).join('|');
  const byHand = new RegExp(`[\`'"/^](?:${alternatives})_(?:\\$\\{|\\[)`);
  const found = files
    .filter((file) => relative(src, file) !== join('core', 'ids.ts'))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(src, file)}:${i + 1}` }))
        .filter(({ line }) => byHand.test(line)),
    );
  assert.deepEqual(
    found.map((f) => f.at),
    [],
    found.map((f) => `${f.at}: ${f.line.trim()}`).join('\n'),
  );
  assert.ok(files.length > 100, 'the sources were read');
});
