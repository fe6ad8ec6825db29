/**
 * Fuzzes every operation the service serves, generated from the served /openapi.json (and the
 * route table behind it, for what the document does not say: a route's error surface, its JWS
 * audience, the form it takes without describing it), so an operation is fuzzed the day it is
 * declared. Each operation is sent a bounded, seeded sample of hostile requests derived from its
 * declared schemas (test/helpers/fuzz-mutations.ts): wrong JSON types, NUL and unpaired
 * surrogates, deep nesting, oversized strings and bodies, unknown fields, extreme numbers,
 * percent-encoded NUL and over-long path segments, form bodies for form routes.
 *
 * Every caller is one the operation admits, so the fuzz reaches validation and the handler rather
 * than stopping at 401 (how each plane is authenticated: `credentialsFor`).
 *
 * Every answer must be a non-5xx (a 5xx only where the operation documents it, and never
 * internal_error), and every refusal must come in its surface's envelope (docs/errors.md):
 * `{error, message}` with a catalogue code on the API, `{error, error_description}` on OAuth
 * endpoints, an HTML page on pages. Violations are collected over the whole run and asserted once,
 * so one run lists every hole.
 *
 * FUZZ_SEED changes the draw (each failure line is reproducible with the seed it names),
 * FUZZ_PER_OPERATION the number of requests per operation, and FUZZ_REPORT=<file> writes the
 * violations as JSON.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ERROR_CATALOGUE } from '../../src/core/errors.ts';
import type { RouteDef } from '../../src/http/route.ts';
import { FetchRefused, type HttpFetcher } from '../../src/ports/http-fetcher.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import {
  ACCOUNT_SLOT,
  type FuzzRequest,
  type JsonSchema,
  type OperationShape,
  type ParamShape,
  payloadOf,
  planFor,
  targetOf,
} from '../helpers/fuzz-mutations.ts';
import { accountOf, holderJws, newHolderKey } from '../helpers/holder.ts';
import { accessToken, createOffer, PRE_AUTH } from '../helpers/issuance.ts';
import { signedInOperator } from '../helpers/operators.ts';
import { livePartnerSession } from '../helpers/partners.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from '../helpers/rail.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_601);
const PER_OPERATION = Number(process.env.FUZZ_PER_OPERATION ?? 20);
/** An answer slower than this is a hole of its own (a parser stuck on a deep body, a lock never released). */
const ANSWER_WITHIN_MS = 15_000;
const TENANT = 'alpha';

/**
 * Bodies the route table leaves open (`{}`, any form field) whose protocol fields are fixed by
 * OID4VCI all the same: named here so the mutations have fields to aim at. Keyed by the path
 * without its `/t/{tenant}` issuer prefix.
 */
const OPEN_BODIES: Record<string, JsonSchema> = {
  'POST /token': {
    type: 'object',
    required: ['grant_type', 'pre-authorized_code'],
    properties: {
      grant_type: { type: 'string', const: PRE_AUTH },
      'pre-authorized_code': { type: 'string' },
      tx_code: { type: 'string' },
    },
  },
  'POST /credential': {
    type: 'object',
    required: ['credential_configuration_id', 'proofs'],
    properties: {
      credential_configuration_id: { type: 'string' },
      proofs: {
        type: 'object',
        required: ['jwt'],
        properties: { jwt: { type: 'array', minItems: 1, items: { type: 'string' } } },
      },
      proof: { type: 'object', properties: { proof_type: { type: 'string' }, jwt: { type: 'string' } } },
      credential_identifier: { type: 'string' },
      credential_response_encryption: { type: 'object', properties: { alg: { type: 'string' }, enc: { type: 'string' } } },
    },
  },
};

/** Error codes that are not in the catalogue but that an OAuth 401 names (RFC 6750 §3.1, from its challenge). */
const OAUTH_CHALLENGE_CODES = new Set(['invalid_token']);
/**
 * Refusals of a request that never reached an operation (the router's own, docs/errors.md): they
 * come in the service envelope whatever the surface of the operation the path was meant for.
 */
const UNROUTED_CODES = new Set(['bad_url', 'uri_too_long', 'not_found', 'method_not_allowed']);

interface OpenApiOperation {
  'x-svc-auth'?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

/** One served operation: what the document says of it, and its declaration in the route table. */
interface Served {
  shape: OperationShape;
  plane: string;
  route: RouteDef;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

interface Violation {
  method: string;
  path: string;
  mutation: string;
  family: string;
  status: number | string;
  /** The `error` of the answer, when it has one. */
  code: string;
  problem: string;
  snippet: string;
  request: string;
}

/** Each served operation, from the document, joined to its route by method and path (or alias). */
function servedOperations(doc: { paths: Record<string, Record<string, OpenApiOperation>> }, routes: RouteDef[]) {
  const byKey = new Map<string, RouteDef>();
  for (const route of routes)
    for (const path of [route.path, ...(route.aliases ?? [])]) byKey.set(`${route.method} ${path}`, route);
  const served: Served[] = [];
  const unmatched: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [lower, op] of Object.entries(item)) {
      const method = lower.toUpperCase();
      const route = byKey.get(`${method} ${path}`);
      if (!route) {
        unmatched.push(`${method} ${path}`);
        continue;
      }
      const params: ParamShape[] = (op.parameters ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({ name: p.name, in: p.in as 'path' | 'query', required: p.required === true, schema: p.schema ?? {} }));
      const [media, content] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      const open = OPEN_BODIES[`${method} ${path.replace(/^\/t\/\{tenant\}/, '')}`];
      const declared = content?.schema ?? {};
      const described = Object.keys(declared.properties ?? {}).length > 0;
      // A route that takes a form (or an optional body) without describing it is fuzzed with an
      // empty schema: its unknown fields, encodings and sizes are still worth sending.
      const takes = media ?? (route.accepts === 'form' || route.bodyOptional ? MEDIA[route.accepts ?? 'json'] : undefined);
      const body: OperationShape['body'] = takes
        ? { media: takes === MEDIA.form ? 'form' : 'json', schema: !described && open ? open : declared }
        : undefined;
      served.push({
        shape: { method, path, params, ...(body ? { body } : {}) },
        plane: op['x-svc-auth'] ?? route.auth,
        route,
        responses: op.responses ?? {},
      });
    }
  }
  return { served, unmatched };
}

const MEDIA = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

const parseJson = (text: string): Record<string, unknown> | undefined => {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const isCatalogued = (code: unknown) => typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);

/** What is wrong with an answer, or undefined: no 5xx but a documented one, and every refusal in its surface's envelope. */
function problemWith(op: Served, res: LightMyRequestResponse): string | undefined {
  const status = res.statusCode;
  if (status < 400) return undefined;
  const type = String(res.headers['content-type'] ?? '');
  const isJson = /^application\/json\b/.test(type);
  const json = isJson ? parseJson(res.body) : undefined;
  const apiEnvelope = isJson && typeof json?.error === 'string' && typeof json.message === 'string';
  // A 500 is the service failing, whatever the operation says of it.
  if (status === 500) return 'the service failed';
  if (status > 500) {
    // docs/errors.md: a deliberate 5xx (directory_unconfigured, mail_unavailable, domain_unreachable)
    // is documented by its operation; anything else, and any internal_error, is the service failing.
    if (op.responses[String(status)] === undefined) return `${status} is not a status this operation documents`;
    if (json?.error === 'internal_error') return `${status} internal_error`;
  }
  if (apiEnvelope && UNROUTED_CODES.has(json.error as string)) return undefined;
  // An operation may document a refusal in a media type of its own (GET /account/approve's 410 page).
  const documented = Object.keys(op.responses[String(status)]?.content ?? {});
  if (documented.some((media) => media !== MEDIA.json && type.startsWith(media))) return undefined;
  switch (op.route.surface ?? 'api') {
    case 'page':
      return /^text\/html\b/.test(type) && /<html[\s>]/i.test(res.body) ? undefined : `not an HTML page (${type || 'no type'})`;
    case 'oauth':
      return isJson &&
        typeof json?.error === 'string' &&
        typeof json.error_description === 'string' &&
        (isCatalogued(json.error) || OAUTH_CHALLENGE_CODES.has(json.error))
        ? undefined
        : `not an RFC 6749 {error, error_description} (${type || 'no type'})`;
    default:
      if (!apiEnvelope) return `not the {error, message} envelope (${type || 'no type'})`;
      return isCatalogued(json?.error) ? undefined : `error code ${JSON.stringify(json?.error)} is not in the catalogue`;
  }
}

/**
 * Whether the answer is the credential plane (or its rate budget) turning the caller away: a 401
 * or 429, a 403 forbidden or account_mismatch, an account page's redirect to its sign-in; rather
 * than anything the operation's input decided.
 */
function refusedAtThePlane(res: LightMyRequestResponse): boolean {
  if (res.statusCode === 401 || res.statusCode === 429) return true;
  if (res.statusCode === 303) return /\/signin$/.test(String(res.headers.location ?? ''));
  if (res.statusCode !== 403) return false;
  const code = parseJson(res.body)?.error;
  return code === 'forbidden' || code === 'account_mismatch';
}

/** Violations grouped by status, code and kind of mutation: one group is usually one cause. */
function report(violations: Violation[], engine: string): string {
  const groups = new Map<string, Violation[]>();
  for (const v of violations) {
    const key = `${v.status}${v.code ? ` ${v.code}` : ''}: ${v.problem} — ${v.family}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  const lines = [`${violations.length} violations on ${engine} (FUZZ_SEED=${SEED}, FUZZ_PER_OPERATION=${PER_OPERATION}):`];
  for (const [key, list] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push('', `## ${key} (${list.length})`);
    for (const v of list) {
      lines.push(`- ${v.method} ${v.path} [${v.mutation}] → ${v.status} ${v.snippet}`, `    ${v.request}`);
    }
  }
  return lines.join('\n');
}

/** The body of an answer, short: a page by its title, anything else by its first characters. */
function snippetOf(res: LightMyRequestResponse): string {
  const title = /^text\/html\b/.test(String(res.headers['content-type'] ?? ''))
    ? /<title>([^<]*)<\/title>/i.exec(res.body)
    : null;
  return title ? `(page) ${title[1]}` : clip(res.body, 160);
}

const clip = (text: string, n: number) => {
  const shown = JSON.stringify(text.length > n ? `${text.slice(0, n)}…` : text);
  return shown.slice(1, -1);
};

/** No outbound request leaves a test: every fetch fails as an unreachable network would, at once. */
const offline: HttpFetcher = {
  get: async () => {
    throw new FetchRefused('network', 'The fuzz runs offline.');
  },
  post: async () => {
    throw new FetchRefused('network', 'The fuzz runs offline.');
  },
};

const cookieOf = (res: LightMyRequestResponse, name: string): string | undefined => {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const found = list.find((c) => c.startsWith(`${name}=`));
  return found?.split(';')[0];
};

for (const factory of testDatabases()) {
  describe(`every served operation, fuzzed, fails closed in its own envelope (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let operations: Served[];
    let unmatched: string[];
    let typeId: string;
    /** Each issuer's type, by tenant: what an offer (and so an access token) is made of. */
    const typeIds = new Map<string, string>();
    let vct: string;
    let transactionId: string;
    let resultToken: string;
    /** The account id non-holder operations are given where a path or body names one. */
    let someAccount: string;

    /**
     * A calling address of its own for every request the fuzz sends: anonymous writes are counted
     * per address (docs/security.md, "Anonymous budgets"), and thousands of requests from one
     * address would be answered 429 long before they reached the operation's input. Private
     * addresses from a counter, so a run is the same every time.
     */
    let addresses = 0;
    const nextAddress = () => {
      const n = ++addresses;
      return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    };

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });

    before(async () => {
      db = await factory.create();
      // No background job changes a row under the fuzz, and nothing leaves the machine (a domain
      // verification, a webhook delivery fails as an unreachable network).
      rail = await startRail(db, { OPENRAIL_DIRECTORY_PEPPER: 'p'.repeat(40) }, undefined, { runJobs: false, fetcher: offline });
      for (const name of ['Alpha', 'Beta']) assert.equal((await post('/api/tenants', { name })).statusCode, 201);
      // A type on the platform issuer and on alpha, so offers (and access tokens) exist for both
      // credential endpoints.
      for (const tenant of ['root', TENANT]) {
        const made = await post('/api/types', { tenant, name: 'Card', claims: ['name'] });
        assert.equal(made.statusCode, 201, made.body);
        const body = made.json() as { typeId: string; vct: string };
        typeIds.set(tenant, body.typeId);
        if (tenant === TENANT) ({ typeId, vct } = body);
      }
      // An operator for the people operations to aim at. Not needed for the fuzz to run (the
      // username is then merely unknown), and POST /api/operators is fuzzed like every other
      // operation, so a failure here is left for the fuzz to report.
      await post('/api/operators', {
        username: 'fuzz-target',
        password: `pw-${randomBytes(12).toString('hex')}`,
        roles: ['support'],
        tenant: null,
      });
      const opened = await post(
        '/verify/request',
        { vct, claims: ['name'], nonce: randomBytes(18).toString('base64url'), aud: 'https://rp.example' },
        {},
      );
      assert.equal(opened.statusCode, 201, opened.body);
      ({ transactionId, resultToken } = opened.json() as { transactionId: string; resultToken: string });
      someAccount = accountOf(await newHolderKey());
      const doc = (await rail.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      ({ served: operations, unmatched } = servedOperations(
        doc,
        rail.routes.flatMap((g) => g.routes),
      ));
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    /**
     * A caller the operation admits, made afresh for each request where a credential is spent or
     * ended by the request (a holder jti, a session an action signs out):
     * - public: nothing;
     * - operator: the owner bearer wherever the roles admit an owner (it is platform-wide, so every
     *   tenant scope, `platform` included, passes); a partner session (scoped to alpha, its
     *   team's admin) on the partner programme's operations, which admit only partner roles; any
     *   other role set, a platform-wide operator signed in with exactly those roles;
     * - holder: a fresh holder JWS per request, signed by a fresh key whose account fills
     *   {accountId}, for the operation's own audience when it declares one;
     * - access-token: a real OID4VCI access token per request (an offer, then POST /token), of the
     *   issuer the path names (alpha for /t/{tenant}/…, the platform otherwise): a request that
     *   succeeded would have spent it;
     * - result-token: the real result token of a live transaction (the plane never refuses);
     * - browser-ticket: a real ticket cookie, from GET /account/signin, once per operation;
     * - account-session: a real session cookie per request, from POST /account/session with a
     *   holder JWS (an erasure or a sign-out ends it);
     * - any plane added later: no credential at all, so its 401 is fuzzed and must still come in
     *   the envelope.
     */
    async function credentialsFor(op: Served): Promise<() => Promise<{ headers: Record<string, string>; account?: string }>> {
      const { route } = op;
      switch (op.plane) {
        case 'public':
          return async () => ({ headers: {} });
        case 'operator': {
          const roles = (route.roles ?? []) as string[];
          if (roles.includes('owner')) return async () => ({ headers: owner });
          if (roles.some((r) => r.startsWith('partner-'))) {
            return async () => ({ headers: (await livePartnerSession(rail.db, { tenant: TENANT })).bearer });
          }
          const headers = await signedInOperator(rail.app, `fuzz-${randomBytes(4).toString('hex')}`, roles);
          return async () => ({ headers });
        }
        case 'holder': {
          const aud = route.audience ? `${PUBLIC_URL}${route.audience}` : PUBLIC_URL;
          return async () => {
            const key = await newHolderKey();
            return { headers: { authorization: `Holder ${await holderJws({ aud }, { key })}` }, account: accountOf(key) };
          };
        }
        case 'access-token': {
          const tenant = op.shape.path.startsWith('/t/{tenant}/') ? TENANT : 'root';
          return async () => {
            const { code } = await createOffer(rail.app, { tenant, typeId: typeIds.get(tenant), subject: { name: 'x' } });
            return { headers: bearer((await accessToken(rail.app, tenant, code)).access_token) };
          };
        }
        case 'result-token':
          return async () => ({ headers: bearer(resultToken) });
        case 'browser-ticket': {
          const signin = await rail.app.inject({ method: 'GET', url: '/account/signin', remoteAddress: nextAddress() });
          const cookie = cookieOf(signin, 'openrail_signin');
          assert.ok(cookie, `GET /account/signin set no ticket: ${signin.statusCode}`);
          return async () => ({ headers: { cookie } });
        }
        case 'account-session':
          return async () => {
            const key = await newHolderKey();
            const opened = await rail.app.inject({
              method: 'POST',
              url: '/account/session',
              remoteAddress: nextAddress(),
              headers: { authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key })}` },
            });
            const cookie = cookieOf(opened, 'openrail_account');
            assert.ok(cookie, `POST /account/session opened no session: ${opened.statusCode}`);
            return { headers: { cookie }, account: accountOf(key) };
          };
        default:
          return async () => ({ headers: {} });
      }
    }

    /** Sends one request, never longer than ANSWER_WITHIN_MS; a throw or a timeout is answered as a string. */
    async function send(op: Served, request: FuzzRequest, headers: Record<string, string>, account: string) {
      const url = targetOf(op.shape.path, request).replaceAll(ACCOUNT_SLOT, account);
      const text = request.body?.text.replaceAll(ACCOUNT_SLOT, account);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no answer within ${ANSWER_WITHIN_MS} ms`), ANSWER_WITHIN_MS);
      });
      try {
        const answer = rail.app
          .inject({
            method: op.shape.method as 'GET',
            url,
            remoteAddress: nextAddress(),
            // Forms are posted from the service's own origin, so the same-origin check of form
            // actions lets them through to the handler.
            headers: { origin: PUBLIC_URL, ...headers, ...(request.body ? { 'content-type': request.body.contentType } : {}) },
            ...(text !== undefined ? { payload: payloadOf(text) } : {}),
          })
          .catch((err: Error) => `inject threw ${err.name}: ${err.message}`);
        return { url, text, res: await Promise.race([answer, timeout]) };
      } finally {
        clearTimeout(timer);
      }
    }

    test('the document lists operations, and each is in the route table', () => {
      assert.deepEqual(unmatched, [], 'operations of /openapi.json with no route behind them');
      assert.ok(operations.length > 0);
    });

    test('no answer is a 5xx it does not document, and every refusal is in its surface’s envelope', async (t) => {
      const known: Record<string, unknown> = {
        tenant: TENANT,
        slug: TENANT,
        typeId,
        vct,
        transactionId,
        accountId: ACCOUNT_SLOT,
        username: 'fuzz-target',
        credential_configuration_id: typeId,
        // Values a handler checks beyond the schema, so a baseline gets past it to the field a
        // mutation aims at.
        claims: ['name'],
        subject: { name: 'x' },
        password: 'fuzz-password-0123456789',
        identifier: 'fuzz@mail.example',
        contactEmail: 'fuzz@mail.example',
        domain: 'id.alpha.example',
        url: 'https://hooks.example/fuzz',
        contractVersion: '0.3.0',
      };
      const violations: Violation[] = [];
      /** Status counts over the run, and the operations none of whose requests got past the plane. */
      const statuses = new Map<string, number>();
      const neverAdmitted: string[] = [];
      const started = Date.now();
      let sent = 0;
      for (const op of operations) {
        const { method, path } = op.shape;
        const caller = await credentialsFor(op);
        let admitted = false;
        for (const request of planFor(op.shape, { known, perOperation: PER_OPERATION, seed: SEED })) {
          const { headers, account } = await caller();
          const { url, text, res } = await send(op, request, headers, account ?? someAccount);
          sent++;
          const status = typeof res === 'string' ? 'none' : String(res.statusCode);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (typeof res !== 'string' && !refusedAtThePlane(res)) admitted = true;
          const problem = typeof res === 'string' ? res : problemWith(op, res);
          if (!problem) continue;
          violations.push({
            method,
            path,
            mutation: request.mutation,
            family: request.family,
            status: typeof res === 'string' ? 'none' : res.statusCode,
            code: typeof res === 'string' ? '' : String(parseJson(res.body)?.error ?? ''),
            problem,
            snippet: typeof res === 'string' ? '' : snippetOf(res),
            request: `${method} ${clip(url, 160)}${text === undefined ? '' : ` (${request.body?.contentType}) ${clip(text, 160)}`}`,
          });
        }
        if (!admitted) neverAdmitted.push(`${method} ${path}`);
      }
      t.diagnostic(
        `statuses: ${[...statuses]
          .sort()
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
      );
      t.diagnostic(
        `${factory.name}: ${operations.length} operations, ${sent} requests in ${Math.round((Date.now() - started) / 1000)} s, ${violations.length} violations (FUZZ_SEED=${SEED})`,
      );
      if (process.env.FUZZ_REPORT)
        writeFileSync(`${process.env.FUZZ_REPORT}.${factory.name}.json`, JSON.stringify(violations, null, 2));
      // The fuzz is only worth its name where it gets past the credential: an operation whose every
      // answer is the plane's refusal was never fuzzed at all. Both lists are reported in one go.
      const unreached = neverAdmitted.map((o) => `- ${o}`).join('\n');
      assert.ok(
        violations.length === 0 && neverAdmitted.length === 0,
        `${report(violations, factory.name)}${unreached ? `\n\nNever got past the credential plane:\n${unreached}` : ''}`,
      );
    });
  });
}
