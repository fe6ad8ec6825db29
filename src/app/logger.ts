import { hostname } from 'node:os';
import pino, { type DestinationStream, type Logger } from 'pino';
import { loggable } from '../http/error-handler.ts';

/** Log lines waiting for the disk or pipe beyond this many bytes are dropped, never held without bound. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/**
 * Each write is whole lines of at most this many bytes, which Linux writes to a pipe at once: the
 * worker processes of `serve --workers` share one standard output, and their lines never interleave.
 */
const PIPE_BUF = 4096;

/**
 * The service's structured log (pino, one JSON object per line). Request lines name the route
 * template, never the path (http/app.ts); an error is logged by its class, code, message and stack
 * only, since its other members (a URL's `input`, a parser's raw request bytes) can hold a query
 * string, a header or a token; and fields that hold secrets by name are censored wherever they
 * appear.
 *
 * Lines go to standard output asynchronously: a line costs its serialisation and a copy, and the
 * lines written while one write is in flight go out together in the next (pino flushes what is
 * left when the process exits).
 */
export function createLogger(level: string, destination?: DestinationStream, node?: string): Logger {
  const options = {
    level,
    // Every line names its node (OPENRAIL_NODE_ID) beside pino's pid and host name.
    ...(node ? { base: { pid: process.pid, hostname: hostname(), node } } : {}),
    serializers: { err: loggable },
    redact: { paths: ['*.password', '*.token', '*.privateKey', '*.d'], censor: '[redacted]' },
  };
  return pino(
    options,
    destination ?? pino.destination({ dest: 1, sync: false, maxWrite: PIPE_BUF, maxLength: MAX_BUFFERED_BYTES }),
  );
}
