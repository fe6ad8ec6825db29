import pino, { type DestinationStream, type Logger } from 'pino';
import { loggable } from '../http/error-handler.ts';

/**
 * The service's structured log (pino, one JSON object per line). Request lines name the route
 * template, never the path (http/app.ts); an error is logged by its class, code, message and stack
 * only, since its other members (a URL's `input`, a parser's raw request bytes) can hold a query
 * string, a header or a token; and fields that hold secrets by name are censored wherever they
 * appear.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    serializers: { err: loggable },
    redact: { paths: ['*.password', '*.token', '*.privateKey', '*.d'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
