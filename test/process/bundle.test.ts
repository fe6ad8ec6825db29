/**
 * `bin/openrail.js` runs the bundle `npm install` builds (scripts/build.ts, build/) only while every
 * source it was built from is as it was, and the sources through tsx otherwise
 * (docs/decisions/0028-run-the-bundle-built-from-the-sources.md). Checked in a scratch copy of the
 * package (its files with their modification times, node_modules linked): built, the bundle's
 * entry is what runs; a source touched, the sources run; built again, the bundle runs the service,
 * which answers /readyz and pages, its modules' text within Latin-1 (a page's ’ written as an escape).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, REPO_ROOT, serveOn } from '../helpers/process.ts';

const MARK = 'the bundle ran';

describe('bin/openrail.js: the bundle while it is of the sources on disk, the sources otherwise', () => {
  let dir: string;
  const run = (...args: string[]) =>
    execFileSync(process.execPath, [join(dir, 'bin', 'openrail.js'), ...args], { cwd: dir, encoding: 'utf8' });
  const build = () => execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: dir, encoding: 'utf8' });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'openrail-bundle-'));
    for (const path of ['bin', 'src', 'docs', 'scripts/build.ts', 'package.json', 'tsconfig.json']) {
      cpSync(join(REPO_ROOT, path), join(dir, path), {
        recursive: true,
        preserveTimestamps: true,
        filter: (from) => !from.endsWith('.test.ts'),
      });
    }
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('built: the stamp lists the sources read, and the bundle is what runs', () => {
    assert.match(build(), /^openrail: built build\/ from \d+ source files/);
    const { inputs } = JSON.parse(readFileSync(join(dir, 'build', 'sources.json'), 'utf8')) as {
      inputs: Record<string, [number, number]>;
    };
    for (const file of ['src/cli/main.ts', 'src/cli/usage.ts', 'package.json', 'tsconfig.json']) {
      assert.ok(inputs[file], `${file} is stamped`);
    }
    assert.equal(inputs['src/cli/main.test.ts'], undefined, 'tests are not part of the bundle');
    // The entry, replaced by a marker (the stamp lists sources, not what was built): it runs.
    writeFileSync(join(dir, 'build', 'main.js'), `console.log(${JSON.stringify(MARK)});\n`);
    assert.equal(run('-v').trim(), MARK);
  });

  test('a source touched: the sources run, through tsx', () => {
    const file = join(dir, 'src', 'cli', 'usage.ts');
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    assert.match(run('-v'), /^openrail \d+\.\d+\.\d+/);
  });

  test('built again: the bundle serves', async () => {
    build();
    // Every module's text fits in one byte a character, the way V8 keeps it (scripts/build.ts).
    for (const file of readdirSync(join(dir, 'build', 'chunks'))) {
      const wide = /[\u0100-\uffff]/.exec(readFileSync(join(dir, 'build', 'chunks', file), 'utf8'));
      assert.equal(wide, null, `${file} holds ${wide?.[0]} at ${wide?.index}`);
    }
    assert.match(run('-v'), /^openrail \d+\.\d+\.\d+/);
    const data = mkdtempSync(join(tmpdir(), 'openrail-bundle-data-'));
    // The scratch copy's own bin/openrail.js.
    const server = await serveOn(
      { OPENRAIL_DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'o.sqlite')}`, LOG_LEVEL: 'warn' },
      await freePort(),
      join(dir, 'bin', 'openrail.js'),
    );
    try {
      assert.equal((await fetch(`${server.origin}/readyz`)).status, 200);
      const page = await fetch(`${server.origin}/developers/docs/issuance`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<h1>/);
      // A page template's ’ was written as an escape into the bundle (scripts/build.ts): served as itself.
      const partners = await fetch(`${server.origin}/partners`);
      assert.equal(partners.status, 200);
      assert.match(await partners.text(), /holders’ wallets/);
    } finally {
      server.proc.kill();
      await server.proc.exited(30_000);
      rmSync(data, { recursive: true, force: true });
    }
  });
});
