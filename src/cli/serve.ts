import { createLogger } from '../app/logger.ts';
import { compose } from '../compose.ts';
import { ConfigError, loadConfig } from '../config/config.ts';
import { VERB_USAGE } from './usage.ts';

/** `openrail serve` / `npm start`: validate configuration, migrate, seed, listen, drain on SIGTERM. */
export async function serve(args: string[]): Promise<void> {
  if (args.length > 0) {
    process.stderr.write(`openrail serve: unknown option ${args[0]}\n${VERB_USAGE.serve}\n`);
    process.exit(2);
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`openrail: configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }

  const logger = createLogger(config.logLevel);

  const fail = (err: unknown): never => {
    logger.fatal({ err }, 'start failed');
    process.stderr.write(`openrail: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  };
  const rail = await compose(config, { logger, warn: (m) => logger.warn(m) }).catch(fail);
  // The one place a secret is printed, on purpose and only once, outside the structured log, and
  // before listening, so that a port already in use cannot swallow the only copy.
  if (rail.revealedOwnerToken) {
    process.stdout.write(
      `\nOwner token (shown once; store it now, only its hash is kept):\n  ${rail.revealedOwnerToken}\n` +
        'Use it as: Authorization: Bearer <token>\n',
    );
  }
  await rail.app.listen({ port: config.port, host: config.host }).catch(fail);
  const address = rail.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    { listen: `http://${config.host}:${port}`, publicUrl: config.publicUrl.origin, database: config.database.kind },
    'openrail is serving',
  );
  process.stdout.write(`\nopenrail is serving at ${config.publicUrl.origin} (listening on ${config.host}:${port})\n\n`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'draining and shutting down');
    rail.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
