/**
 * The deployment files read, not run (no container daemon runs compose.yaml in CI; the image
 * itself is built and run by image.test.ts): compose.yaml parses and wires openrail to a healthy
 * PostgreSQL 15 through named volumes and the README's variables only; the Dockerfile's defaults,
 * user, volume, port and health check agree with compose.yaml and the README; its build context
 * lets in every file it copies; and docs/deploy.md names only variables the README documents.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/process.ts';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

/** Every variable named in the first column of the README's configuration table. */
function documentedVariables(): Set<string> {
  const readme = read('README.md');
  const start = readme.indexOf('## Configuration');
  const end = readme.indexOf('\n## ', start + 1);
  assert.ok(start >= 0 && end > start, 'the README has a configuration section');
  const names = new Set<string>();
  for (const row of readme.slice(start, end).split('\n')) {
    const first = /^\| ([^|]+) \|/.exec(row)?.[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1] ?? '');
  }
  return names;
}

/** The Dockerfile's instructions, continuation lines joined. */
function instructions(): Array<{ op: string; args: string }> {
  return read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => {
      const [op = '', ...rest] = line.trim().split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition?: string }>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test?: string[] | string };
}

const compose = parse(read('compose.yaml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const documented = documentedVariables();

describe('compose.yaml', () => {
  const openrail = compose.services.openrail as Service;
  const postgres = compose.services.postgres as Service;

  test('builds openrail from the Dockerfile and runs it beside postgres:15', () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ['openrail', 'postgres']);
    assert.equal(openrail.build, '.');
    assert.equal(postgres.image, 'postgres:15');
  });

  test('openrail starts once PostgreSQL is healthy, and both have a health check', () => {
    assert.deepEqual(openrail.depends_on, { postgres: { condition: 'service_healthy' } });
    assert.match(String(postgres.healthcheck?.test), /pg_isready/);
    assert.match(String(openrail.healthcheck?.test), /\/readyz/);
  });

  test('openrail is configured by variables the README documents, and reaches the postgres service', () => {
    const names = Object.keys(openrail.environment ?? {});
    assert.ok(names.length > 0);
    for (const name of names) assert.ok(documented.has(name), `${name} is not in the README's configuration table`);
    for (const name of ['PUBLIC_URL', 'DATABASE_URL', 'OPENRAIL_MASTER_KEY', 'OPENRAIL_OWNER_TOKEN']) {
      assert.ok(names.includes(name), name);
    }
    const env = postgres.environment ?? {};
    assert.equal(
      openrail.environment?.DATABASE_URL,
      `postgres://${env.POSTGRES_USER}:\${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}@postgres:5432/${env.POSTGRES_DB}`,
    );
    assert.equal(env.POSTGRES_PASSWORD, `\${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}`);
  });

  test('data lives in named volumes, openrail in the volume and on the port the image declares', () => {
    const declared = Object.keys(compose.volumes).sort();
    const used = [...(openrail.volumes ?? []), ...(postgres.volumes ?? [])].map((v) => v.split(':')[0] ?? '').sort();
    assert.deepEqual(used, declared);
    const image = instructions();
    const volume = image.find((i) => i.op === 'VOLUME')?.args;
    assert.equal(volume, '["/data"]');
    assert.deepEqual(
      (openrail.volumes ?? []).map((v) => v.split(':')[1]),
      ['/data'],
    );
    const exposed = image.find((i) => i.op === 'EXPOSE')?.args;
    assert.deepEqual(
      (openrail.ports ?? []).map((p) => p.split(':').at(-1)),
      [exposed],
    );
  });
});

describe('Dockerfile', () => {
  const image = instructions();

  test('builds on the usual node images unless a build argument says otherwise', () => {
    const args = image.filter((i) => i.op === 'ARG').map((i) => i.args);
    assert.ok(args.includes('BASE=node:20-bookworm-slim'), args.join(', '));
    assert.ok(args.includes('BUILD_BASE=node:20-bookworm'), args.join(', '));
    const froms = image.filter((i) => i.op === 'FROM').map((i) => i.args);
    assert.deepEqual(froms, [`\${BUILD_BASE} AS build`, `\${BASE}`]);
  });

  test('runs serve as an unprivileged user, configured by documented variables, healthy on /readyz', () => {
    assert.equal(image.find((i) => i.op === 'USER')?.args, '10001:10001');
    const env = image.filter((i) => i.op === 'ENV').flatMap((i) => [...i.args.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]));
    assert.deepEqual(env, ['NODE_ENV', 'HOST', 'PORT', 'OPENRAIL_DATA_DIR']);
    for (const name of env) assert.ok(documented.has(name ?? ''), `${name} is not in the README's configuration table`);
    assert.match(image.find((i) => i.op === 'ENV')?.args ?? '', /OPENRAIL_DATA_DIR=\/data\b/);
    assert.match(image.find((i) => i.op === 'HEALTHCHECK')?.args ?? '', /\/readyz/);
    assert.equal(image.find((i) => i.op === 'ENTRYPOINT')?.args, '["node", "--max-semi-space-size=2", "/app/bin/openrail.js"]');
    assert.equal(image.find((i) => i.op === 'CMD')?.args, '["serve"]');
  });

  test('its build context (.dockerignore, an allow list) lets in every file it copies', () => {
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/$/, ''));
    const copied = image
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    assert.ok(copied.length > 0);
    for (const file of copied) assert.ok(allowed.includes(file), `${file} is copied but .dockerignore leaves it out`);
  });
});

describe('docs/deploy.md', () => {
  test('names only variables the README documents, and the README links it', () => {
    const doc = read('docs/deploy.md');
    // Build arguments (OPENRAIL_COMMIT) are the Dockerfile's, not the service's.
    const buildArgs = new Set(instructions().flatMap((i) => (i.op === 'ARG' ? [i.args.split('=')[0]] : [])));
    const named = new Set([...doc.matchAll(/`((?:OPENRAIL|OTEL)_[A-Z0-9_]+)/g)].map((m) => m[1] ?? ''));
    assert.ok(named.size > 5);
    for (const name of named) {
      assert.ok(documented.has(name) || buildArgs.has(name), `${name} is not in the README's configuration table`);
    }
    assert.match(read('README.md'), /^- \[docs\/deploy\.md\]\(docs\/deploy\.md\): /m);
  });
});
