/**
 * A TCP server on loopback that speaks just enough of the PostgreSQL protocol to refuse a
 * connection the way a real server does: it reads the client's start-up message and answers with
 * one ErrorResponse (severity FATAL, the SQLSTATE and message given), then closes. PostgreSQL
 * answers so while it starts up or recovers (57P03, "the database system is starting up"), a state
 * a test cannot hold a real server in.
 */
import { createServer, type Socket } from 'node:net';

export interface RefusingServer {
  readonly port: number;
  /** Start-up messages received, by the `user` and `database` they named. */
  readonly startups: { user?: string; database?: string }[];
  stop(): Promise<void>;
}

/** PostgreSQL's ErrorResponse: 'E', its length, then fields of a code byte and a C string, then a zero byte. */
function errorResponse(sqlstate: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', sqlstate],
      ['M', message],
    ].map(([code, text]) => Buffer.from(`${code}${text}\0`, 'utf8')),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'ascii');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** The key/value pairs of a start-up message: its length, protocol version, then C-string pairs. */
function startupParameters(message: Buffer): Record<string, string> {
  const parts = message.subarray(8).toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params[parts[i] as string] = parts[i + 1] ?? '';
  return params;
}

/** SSLRequest's protocol code (PostgreSQL, "Message Formats"): answered 'N', no TLS here. */
const SSL_REQUEST = 80877103;

export async function startRefusingServer(sqlstate: string, message: string): Promise<RefusingServer> {
  const startups: RefusingServer['startups'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 8 && buffered.length >= buffered.readInt32BE(0)) {
        const length = buffered.readInt32BE(0);
        const packet = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        if (packet.readInt32BE(4) === SSL_REQUEST) {
          socket.write('N');
          continue;
        }
        const params = startupParameters(packet);
        startups.push({
          ...(params.user ? { user: params.user } : {}),
          ...(params.database ? { database: params.database } : {}),
        });
        socket.end(errorResponse(sqlstate, message));
        return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    startups,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
