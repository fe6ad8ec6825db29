/**
 * The reference topology (scripts/ha-cluster.sh, docs/high-availability.md) brought up, written
 * through, looked at and taken down. It needs Debian's patroni, etcd-server, haproxy and
 * PostgreSQL 15: without them it skips, saying why, except in CI, where it fails.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  clusterPorts,
  haCluster,
  haClusterMissing,
  isRunning,
  processesFrom,
  readClusterEnv,
  recordedPids,
  type ScriptRun,
} from '../helpers/ha-cluster.ts';

const skip = haClusterMissing();

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe('the reference HA topology (scripts/ha-cluster.sh)', { skip, timeout: 300_000 }, () => {
  // Under /tmp, which the postgres user can traverse when the test runs as root; not created
  // here: `up` wants a fresh directory.
  const dir = join(tmpdir(), `openrail-ha-test-${process.pid}-${randomBytes(3).toString('hex')}`);
  let up: ScriptRun;
  let env: Record<string, string> = {};

  before(async () => {
    up = await haCluster('up', dir);
    if (existsSync(join(dir, 'cluster.env'))) env = readClusterEnv(dir);
  });

  after(async () => {
    // The last test takes it down; this is for when an earlier one failed.
    if (existsSync(dir)) await haCluster('down', dir);
  });

  test('up brings it all up: a write through HAProxy, a streaming synchronous standby, three ready nodes', (t) => {
    assert.equal(up.code, 0, `up failed\nstdout:\n${up.stdout}\nstderr:\n${up.stderr}`);
    for (const stage of ['first write through HAProxy at', 'synchronous standby streaming at', 'openrail nodes ready at']) {
      const line = up.stdout.split('\n').find((l) => l.includes(stage));
      assert.ok(line, `up printed no "${stage}" line:\n${up.stdout}`);
      t.diagnostic(line.replace(/^ha-cluster: /, ''));
    }
    for (const key of ['HAPROXY_PG_PORT', 'HAPROXY_WEB_PORT', 'OPENRAIL1_PORT', 'OPENRAIL_OWNER_TOKEN', 'DATABASE_URL']) {
      assert.ok(env[key], `cluster.env has no ${key}`);
    }
  });

  test('a tenant created through the front end is seen by every node, and is on the synchronous standby', async () => {
    assert.equal(up.code, 0, 'the cluster is not up');
    const created = await fetch(`${env.OPENRAIL_URL}/api/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.OPENRAIL_OWNER_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'High Availability Works' }),
    });
    const text = await created.text();
    assert.equal(created.status, 201, text);
    const { slug } = JSON.parse(text) as { slug: string };

    for (const node of [1, 2, 3]) {
      const res = await fetch(`http://127.0.0.1:${env[`OPENRAIL${node}_PORT`]}/t/${slug}/did.json`);
      const body = await res.text();
      assert.equal(res.status, 200, `openrail${node}: ${body}`);
      assert.ok(body.includes(`:t:${slug}`), `openrail${node} answered another document: ${body}`);
    }

    // A commit is acknowledged once the synchronous standby has it on disk; it is visible there
    // as soon as the standby has replayed it, a moment later.
    const standby = await standbyPort(env);
    const client = new pg.Client({
      host: '127.0.0.1',
      port: standby,
      user: 'postgres',
      password: env.PG_SUPERUSER_PASSWORD,
      database: 'openrail',
    });
    await client.connect();
    try {
      const inRecovery = await client.query<{ r: boolean }>('select pg_is_in_recovery() as r');
      assert.equal(inRecovery.rows[0]?.r, true, 'the node read from is not a standby');
      let rows = 0;
      for (let i = 0; i < 50 && rows === 0; i++) {
        rows = (await client.query('select 1 from tenants where slug = $1', [slug])).rowCount ?? 0;
        if (rows === 0) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(rows, 1, `tenant ${slug} is not on the standby`);
    } finally {
      await client.end();
    }
  });

  test('status shows the leader, the synchronous standby and every node ready', async () => {
    assert.equal(up.code, 0, 'the cluster is not up');
    const status = await haCluster('status', dir, 60_000);
    assert.equal(status.code, 0, `status failed\nstdout:\n${status.stdout}\nstderr:\n${status.stderr}`);
    assert.match(status.stdout, /\| Leader\s+\| running/);
    assert.match(status.stdout, /\| Sync Standby \| (running|streaming)/);
    for (const node of ['openrail1', 'openrail2', 'openrail3']) assert.match(status.stdout, new RegExp(`${node} .* 200$`, 'm'));
    assert.match(status.stdout, /front end .* 200$/m);
  });

  test('down stops everything it started, the detached postmasters too, and removes the state directory', async () => {
    assert.ok(existsSync(dir), 'there is no state directory to take down');
    const pids = recordedPids(dir);
    const ports = clusterPorts(env);
    assert.ok(pids.has('pg1 postmaster') || pids.has('pg2 postmaster'), 'no postmaster.pid was found');

    const down = await haCluster('down', dir, 120_000);
    assert.equal(down.code, 0, `down failed\nstdout:\n${down.stdout}\nstderr:\n${down.stderr}`);
    assert.equal(existsSync(dir), false, 'the state directory is still there');
    assert.deepEqual(
      [...pids].filter(([, pid]) => isRunning(pid)).map(([name, pid]) => `${name} (${pid})`),
      [],
      'still running',
    );
    assert.deepEqual(processesFrom(dir), [], 'processes left from the state directory');
    const open: string[] = [];
    for (const [name, port] of ports) if (await listening(port)) open.push(`${name} ${port}`);
    assert.deepEqual(open, [], 'ports still listening');
  });
});

/** The PostgreSQL port of the node that is not the primary (Patroni's REST API says which). */
async function standbyPort(env: Record<string, string>): Promise<number> {
  for (const node of [1, 2]) {
    const res = await fetch(`http://127.0.0.1:${env[`PATRONI${node}_REST_PORT`]}/replica`);
    await res.arrayBuffer();
    if (res.status === 200) return Number(env[`PG${node}_PORT`]);
  }
  throw new Error('neither Patroni node answers 200 on /replica');
}
