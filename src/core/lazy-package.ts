import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded the first time it is used rather than when a module naming it is: what most
 * requests and most deployments never touch (PostgreSQL's driver on SQLite, SMTP without
 * OPENRAIL_SMTP_URL, metrics when off, QR codes, the document renderer, an identity provider) is
 * then never loaded into a serving process (issue 54, point 3; docs/scaling.md, "Memory"). Loaded
 * synchronously (Node 20.19 requires ES modules too), so a caller's API stays as it was; a
 * package that is missing fails where it is first needed, with Node's own message.
 */
export function whenFirstUsed<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}
