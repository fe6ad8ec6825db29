/**
 * The container image (issue 53, docs/deploy.md), built and run for real with podman: the
 * Dockerfile built on bases made of Debian packages (scripts/debian-base.sh; no image registry is
 * reached), a container started from it as the image says (`openrail serve` as an unprivileged
 * user, data in the /data volume, configured by the environment), ready on `/readyz` and healthy
 * by the image's own HEALTHCHECK, a tenant created with the owner token as the README's first tour
 * does, the container stopped (it drains and exits 0) and removed, and a new container on the same
 * volume finding the tenant and its keys again. It needs root and Debian's podman, runc and
 * mmdebstrap: without them it skips, saying why, except in CI, where it fails. The first run on a
 * machine makes the bases and compiles the native modules (several minutes); later runs reuse the
 * cached bases and the build's layers.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import {
  type BuiltImage,
  buildImage,
  containerToolsMissing,
  getJson,
  podman,
  RUN_LIMITS,
  waitReady,
} from '../helpers/container.ts';
import { freePort, REPO_ROOT } from '../helpers/process.ts';

const skip = containerToolsMissing();

describe('the container image (Dockerfile)', { skip, timeout: 1_800_000 }, () => {
  const suffix = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const volume = `openrail-test-data-${suffix}`;
  const names = [`openrail-test-${suffix}-a`, `openrail-test-${suffix}-b`];
  const owner = `container-owner-${randomBytes(16).toString('hex')}`;
  // Configured as a production deployment is: NODE_ENV=production comes from the image, so the
  // master key and an https PUBLIC_URL are required.
  const env = {
    OPENRAIL_MASTER_KEY: randomBytes(32).toString('base64url'),
    OPENRAIL_OWNER_TOKEN: owner,
    PUBLIC_URL: 'https://openrail.test',
  };
  let image: BuiltImage | undefined;
  let port = 0;
  const origin = () => `http://127.0.0.1:${port}`;
  let didBefore: unknown;

  const started = Date.now();
  after(async () => {
    for (const name of names) await podman(['rm', '--force', '--time', '0', name]);
    await podman(['volume', 'rm', '--force', volume]);
  });

  /** A container from the image, as docs/deploy.md runs it, on the suite's volume and port. */
  async function start(name: string): Promise<number> {
    assert.ok(image, 'the image was built');
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    const ran = await podman([
      'run',
      '--detach',
      '--name',
      name,
      ...RUN_LIMITS,
      '--publish',
      `127.0.0.1:${port}:3000`,
      '--volume',
      `${volume}:/data`,
      ...envArgs,
      image.id,
    ]);
    assert.equal(ran.code, 0, ran.stderr);
    return waitReady(origin(), name);
  }

  test('builds from bases made of Debian packages, as an unprivileged user with a volume and a health check', async (t) => {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT }).toString().trim();
    image = await buildImage(commit);
    t.diagnostic(`bases ${image.baseSeconds} s, build ${image.buildSeconds} s`);
    const inspected = await podman(['image', 'inspect', image.id]);
    assert.equal(inspected.code, 0, inspected.stderr);
    const [config] = JSON.parse(inspected.stdout) as Array<{
      Config: {
        User: string;
        Volumes: Record<string, unknown>;
        ExposedPorts: Record<string, unknown>;
        Entrypoint: string[];
        Cmd: string[];
        Env: string[];
      };
      Healthcheck?: { Test: string[] };
    }>;
    assert.ok(config);
    assert.equal(config.Config.User, '10001:10001');
    assert.deepEqual(Object.keys(config.Config.Volumes), ['/data']);
    assert.deepEqual(Object.keys(config.Config.ExposedPorts), ['3000/tcp']);
    assert.deepEqual(
      [...config.Config.Entrypoint, ...config.Config.Cmd],
      ['node', '--max-semi-space-size=2', '/app/bin/openrail.js', 'serve'],
    );
    for (const line of ['NODE_ENV=production', 'HOST=0.0.0.0', 'PORT=3000', 'OPENRAIL_DATA_DIR=/data']) {
      assert.ok(config.Config.Env.includes(line), line);
    }
    assert.match(config.Healthcheck?.Test.join(' ') ?? '', /\/readyz/);
    // What the build recorded is what /build will compare the files on disk with.
    const recorded = await podman([
      'run',
      '--rm',
      ...RUN_LIMITS,
      '--network',
      'none',
      '--entrypoint',
      'cat',
      image.id,
      'build-info.json',
    ]);
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.equal((JSON.parse(recorded.stdout) as { commit: string }).commit, commit);
  });

  test('serves as an unprivileged user, ready on /readyz and healthy by its HEALTHCHECK', async (t) => {
    port = await freePort();
    const created = await podman(['volume', 'create', volume]);
    assert.equal(created.code, 0, created.stderr);
    const [first] = names as [string, string];
    t.diagnostic(`ready ${await start(first)} s after starting`);

    const ready = await getJson(`${origin()}/readyz`);
    assert.equal((ready.body as { status: string }).status, 'ready');
    const health = await podman(['healthcheck', 'run', first]);
    assert.equal(health.code, 0, `${health.stdout}${health.stderr}`);

    // Every process of the container (the primary and its workers) runs as the image's user.
    const top = await podman(['top', first, 'user', 'args']);
    const processes = top.stdout.trim().split('\n').slice(1);
    assert.ok(
      processes.some((line) => line.includes('openrail.js serve')),
      top.stdout,
    );
    for (const line of processes) assert.match(line, /^openrail\s/, line);
    // The database is in the volume, and the code is not the user's to change.
    const files = await podman(['exec', first, 'sh', '-c', 'ls /data; test -w /app/src && echo writable || echo read-only']);
    assert.match(files.stdout, /^openrail\.sqlite$/m);
    assert.match(files.stdout, /^read-only$/m);

    // The image ships what its build recorded.
    const build = await getJson(`${origin()}/build`);
    assert.equal(build.status, 200);
    assert.equal((build.body as { matches: boolean }).matches, true, JSON.stringify(build.body));
  });

  test('a tour step: a tenant created with the owner token, with its own did:web', async () => {
    const res = await fetch(`${origin()}/api/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'City of Ghent' }),
    });
    const body = (await res.json()) as { slug: string; did: string };
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.equal(body.slug, 'city-of-ghent');
    assert.equal(body.did, 'did:web:openrail.test:t:city-of-ghent');
    const did = await getJson(`${origin()}/t/city-of-ghent/did.json`);
    assert.equal(did.status, 200);
    didBefore = did.body;
  });

  test('its data survives the container: a new container on the same volume finds the tenant and its key', async (t) => {
    const [first, second] = names as [string, string];
    // podman stop sends SIGTERM: the service drains and exits 0.
    const stopped = await podman(['stop', '--time', '60', first], 90_000);
    assert.equal(stopped.code, 0, stopped.stderr);
    const exit = await podman(['inspect', '--format', '{{.State.ExitCode}}', first]);
    assert.equal(exit.stdout.trim(), '0');
    const removed = await podman(['rm', first]);
    assert.equal(removed.code, 0, removed.stderr);

    t.diagnostic(`ready ${await start(second)} s after starting again`);
    const did = await getJson(`${origin()}/t/city-of-ghent/did.json`);
    assert.equal(did.status, 200);
    assert.deepEqual(did.body, didBefore);
    // The name is taken: the database remembers the first tenant.
    const again = await fetch(`${origin()}/api/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'City of Ghent' }),
    });
    const body = (await again.json()) as { slug: string };
    assert.equal(body.slug, 'city-of-ghent-2', JSON.stringify(body));
    t.diagnostic(`the suite took ${Math.round((Date.now() - started) / 1000)} s`);
  });
});
