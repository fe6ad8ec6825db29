import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { DISPLAY_NAME_PATTERN, DISPLAY_TEXT_PATTERN } from '../../core/display-text.ts';
import { type ErrorCode, ServiceError } from '../../core/errors.ts';
import { idLikePattern } from '../../core/ids.ts';
import { SLUG_PATTERN } from '../../core/slug.ts';
import type { RouteResponse } from '../route.ts';

/** Schemas shared by several operations. */
export const ErrorBody = Type.Object({
  error: Type.String({ description: 'Code from the error catalogue (docs/errors.md).' }),
  message: Type.String(),
});

export const Slug = Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 48 });

/**
 * An issued credential's id (its prefix, core/ids.ts, and base64url). Wider than what is minted
 * (1 to 60 characters after the prefix, not 22), so that a lookup of a mistyped id is a 404, not a 400.
 */
export const CredentialId = Type.String({ pattern: idLikePattern('credential') });

/** A holder account id: the RFC 7638 SHA-256 thumbprint of its device key, base64url without padding. */
export const AccountId = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' });

/**
 * Request fields people will read (core/display-text.ts). Only for requests: the response
 * serialiser compiles patterns without the Unicode flag these need.
 */
export const DisplayName = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: DISPLAY_NAME_PATTERN });
export const DisplayText = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: DISPLAY_TEXT_PATTERN });

/**
 * A refusal an operation declares: the catalogue codes it answers with under this status
 * (core/errors.ts; a code that is not in the catalogue fails the typecheck), and a short note
 * for what the codes do not say themselves. The description starts with the codes, and
 * /openapi.json lists them as the response's `x-svc-error-codes`; test/http/openapi.test.ts
 * holds each code to the status it is declared under.
 */
export function refusal(codes: ErrorCode | readonly ErrorCode[], note?: string): RouteResponse {
  const list: readonly ErrorCode[] = typeof codes === 'string' ? [codes] : codes;
  if (list.length === 0) throw new Error('a refusal names at least one catalogue code');
  const named = list.length === 1 ? `${list[0]}` : `${list.slice(0, -1).join(', ')} or ${list.at(-1)}`;
  // A note about one of several codes starts with that code: a sentence of its own reads better.
  const own = note !== undefined && list.length > 1 && list.some((code) => note.startsWith(code));
  return { description: note ? `${named}${own ? '. ' : ': '}${note}` : named, schema: ErrorBody, codes: list };
}

/** RFC 6749 §5.2 error body, answered by OAuth and OID4VC endpoints. */
export const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });
export const oauthError = (description: string) => ({ description, schema: OAuthError });

/** A response that is an HTML page (a page route's answer). */
export const htmlResponse = (description: string) => ({ description, contentType: 'text/html' });

/** The refusals every authenticated operator operation can give. */
export const OPERATOR_ERRORS = {
  400: refusal(['invalid_request', 'malformed_json'], 'the body fails the schema.'),
  401: refusal('unauthorized', 'missing, invalid or wrong-plane credential; WWW-Authenticate is set.'),
  403: refusal('forbidden', 'the credential lacks the role or tenant scope.'),
} as const;

/**
 * A count in the query string (values are never coerced): 1 to 999 in digits; `boundedCount`
 * holds it to the operation's own maximum.
 */
export const CountQuery = (description: string) => Type.String({ pattern: '^[1-9][0-9]{0,2}$', description });

/** A CountQuery's value: `fallback` when absent, refused (`invalid_request`) above `max`. */
export function boundedCount(value: string | undefined, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (n > max) throw new ServiceError('invalid_request', `${name} is at most ${max}.`);
  return n;
}

/** `limit` of a paginated list; `pageLimit` holds it to the list's own maximum. */
export const PageLimit = CountQuery('Items per page.');

export const pageLimit = (limit: string | undefined, fallback: number, max: number) =>
  boundedCount(limit, fallback, max, 'limit');

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * `schema` as it is published, with `T` as its static type: for a member the document states as a
 * plain string or an open object whose values the code holds to a closed set or a record. Narrowing
 * the schema itself would change the published document.
 */
export const Narrowed = <T>(schema: TSchema) => Type.Unsafe<T>(schema);

/** A time as the back office answers it. */
export const DateTimeView = Type.String({ format: 'date-time' });

/** The cursor of a list ordered by a number (a sequence or a time): digits, passed back as given. */
export const NumericCursor = Type.String({ pattern: '^[0-9]{1,16}$', description: 'nextCursor of the page before.' });

/** What every back-office mutation answers (interface spec, Back-office data plane): `{ok, auditSeq, ...}`. */
export const AdminMutation = <T extends TProperties>(fields: T) =>
  Type.Object({ ok: Type.Literal(true), auditSeq: Type.Integer({ description: 'The audit entry of the change.' }), ...fields });

/** An e-mail address: one @, something on each side, no spaces or angle brackets (what a mail server will take). */
export const EmailAddress = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^\\s@<>()",;]+@[^\\s@<>()",;]+\\.[^\\s@<>()",;]+$',
  description: 'An e-mail address.',
});
