import { createServer } from 'node:net';

/**
 * What stops `openrail serve` from listening on `host`:`port`, said with what to do, or undefined
 * when `err` is no such failure. The same words whether the probe below, the server's own listen
 * or a worker's bind met it.
 */
export function listenProblem(err: unknown, host: string, port: number): string | undefined {
  const { code } = (err ?? {}) as { code?: unknown };
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use (another openrail or another program listens there): stop it, or set PORT to a free port`;
    case 'EACCES':
      return `this process may not listen on port ${port} on ${host} (ports below 1024 need privileges): set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is no address of this machine: set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for all)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} does not resolve to an address: set HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for all)`;
    default:
      return undefined;
  }
}

/**
 * Listens on `host`:`port` for a moment and lets go: the problem that would stop the service from
 * listening there, or undefined. It runs before anything else of a start (loading the service,
 * migrating, reading keys, forking workers), which takes seconds, so that a busy port fails at
 * once. Something may still take the port in between; the service's own listen then fails with
 * the same words. Port 0 (any free port) needs no check.
 */
export function portProblem(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => {
      const problem = listenProblem(err, host, port);
      if (problem) resolve(problem);
      else reject(err);
    });
    probe.listen({ host, port }, () => probe.close(() => resolve(undefined)));
  });
}
