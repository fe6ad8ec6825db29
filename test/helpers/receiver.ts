/**
 * A real webhook receiver on 127.0.0.1 for the delivery tests: it records every request it gets
 * (path, headers, raw body) and answers as the test tells it to, per request.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export interface Receiver {
  origin: string;
  received: Received[];
  /** How the next requests are answered (default: 200). */
  answer: (request: Received) => Answer;
  /** Resolves once `predicate` holds of what was received, checking on every request (default 20 s). */
  until(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    origin: '',
    received: [],
    answer: () => ({ status: 200 }),
    until: (predicate, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(receiver.received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`the receiver did not see what was expected in ${timeoutMs} ms (got ${receiver.received.length} requests)`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(got);
      const answer = receiver.answer(got);
      const reply = () => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
        for (const check of [...waiters]) check();
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
