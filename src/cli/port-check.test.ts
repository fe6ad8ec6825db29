import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { freePort } from '../../test/helpers/process.ts';
import { portProblem } from './port-check.ts';

test('a port another program listens on is named, with what to do', async () => {
  const holder = createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  try {
    assert.equal(
      await portProblem('127.0.0.1', port),
      `port ${port} on 127.0.0.1 is in use (another openrail or another program listens there): stop it, or set PORT to a free port`,
    );
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
  assert.equal(await portProblem('127.0.0.1', port), undefined, 'free again once the other lets go');
});

test('port 0 (any free port) needs no check', async () => {
  assert.equal(await portProblem('127.0.0.1', 0), undefined);
});

test('a HOST that is no address of this machine is named', async () => {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of a real machine.
  assert.match(
    (await portProblem('192.0.2.1', await freePort())) ?? '',
    /^HOST 192\.0\.2\.1 is no address of this machine: set HOST/,
  );
});
