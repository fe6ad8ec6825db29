import { ServiceError } from '../core/errors.ts';
import { illFormed, malformation } from '../core/well-formed.ts';
import { requestTarget } from './request-target.ts';

/** How deep a request body may nest (docs/security.md, "At the edge"); no operation takes more than a few levels. */
export const MAX_BODY_DEPTH = 32;

const refuse = (where: string) =>
  new ServiceError('invalid_request', `${where} holds a NUL character or an unpaired surrogate, which no field takes.`);

/**
 * The request line, before anything reads it (an authenticator reads path parameters): every
 * percent-decoded path segment and query component is well formed. Malformed percent-encoding
 * that is not text at all is refused the same way.
 */
export function assertWellFormedTarget(url: string): void {
  const { path, query } = requestTarget(url);
  if (path.includes('\u0000') || query.includes('\u0000')) throw refuse('The request line');
  if (!path.includes('%') && !query.includes('%')) return;
  for (const segment of path.split('/')) if (illFormed(decoded(segment))) throw refuse('The path');
  for (const part of query.slice(1).split(/[&=]/)) if (illFormed(decoded(part.replaceAll('+', ' ')))) throw refuse('The query');
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    // Not UTF-8 once decoded (an encoded surrogate among them): nothing could read it as text.
    return '\ud800';
  }
}

/** A parsed body (JSON or form): every key and string well formed, nothing nested deeper than MAX_BODY_DEPTH. */
export function assertWellFormedBody(body: unknown): void {
  const found = malformation(body, MAX_BODY_DEPTH, 'body');
  if (found?.problem === 'text') throw refuse(found.at);
  if (found) throw new ServiceError('invalid_request', `body nests deeper than ${MAX_BODY_DEPTH} levels.`);
}
