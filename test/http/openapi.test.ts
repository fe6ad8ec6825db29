import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { defineModule } from '../../src/app/module.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/core/errors.ts';
import { buildApp } from '../../src/http/app.ts';
import { publicPlane } from '../../src/http/auth/principal.ts';
import { defineRoute, type RouteDef } from '../../src/http/route.ts';
import { ErrorBody, refusal } from '../../src/http/schemas/common.ts';
import { requestAjv } from '../../src/http/schemas/request-ajv.ts';
import { assertWellFormedBody } from '../../src/http/well-formed.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { livePartnerSession } from '../helpers/partners.ts';
import { owner, startRail, type TestRail } from '../helpers/rail.ts';

type Operation = Record<string, unknown> & {
  'x-svc-stability'?: unknown;
  'x-svc-internal'?: unknown;
  'x-svc-undocumented'?: unknown;
  security?: Array<Record<string, unknown>>;
  requestBody?: { content?: Record<string, { schema?: unknown; example?: unknown }> };
};
type OpenApiDoc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, { type?: string; scheme?: string }> };
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Realistic values for path parameters, so a templated path reaches its handler. */
const PARAMS: Record<string, string> = {
  tenant: 'demo-transit',
  accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
  itemId: `itm_${'A'.repeat(22)}`,
  productId: `prd_${'A'.repeat(22)}`,
  seq: '1',
  username: 'nobody',
  typeId: 'no-such-type',
  handle: 'A'.repeat(43),
  transactionId: `vtx_${'A'.repeat(22)}`,
  file: 'site.css',
  webhookId: `whk_${'A'.repeat(22)}`,
  deliveryId: `dlv_${'A'.repeat(22)}`,
  requestId: `prv_${'A'.repeat(22)}`,
  tokenId: `itk_${'A'.repeat(22)}`,
  depositId: 'no-such-deposit',
  id: `itk_${'A'.repeat(22)}`,
  approvalId: `apr_${'A'.repeat(22)}`,
  authorizationId: `azr_${'A'.repeat(22)}`,
  incidentId: `inc_${'A'.repeat(22)}`,
  slug: 'demo-transit',
  statusIndex: '0',
  subject: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
  issuerDid: 'did:web:example.test:t:no-such-tenant',
  name: 'issuance',
};

/**
 * The documented operations whose request body the reference shows without an example, each with
 * why. An operation marked x-svc-undocumented is not held to one: its body is not part of the
 * reference (the mark says why), though an example it does carry is checked like any other.
 */
const WITHOUT_EXAMPLE: Record<string, string> = {};

/** A partner session bearer (test/helpers/partners.ts), for the operations only a partner's team calls. */
let partner: Record<string, string> = {};

/**
 * Headers carrying a credential the operation's plane accepts: none for a public operation, the
 * owner token on the operator plane, undefined where this suite holds none (an access token).
 */
function credentialFor(op: Operation): Record<string, string> | undefined {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  if (scheme === undefined) return {};
  if (scheme !== 'operatorBearer') return undefined;
  const roles = (op as { 'x-svc-roles'?: string[] })['x-svc-roles'] ?? [];
  return roles.every((r) => r.startsWith('partner-')) ? partner : owner;
}

const fill = (path: string) =>
  path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = PARAMS[name];
    assert.ok(value, `no realistic value for path parameter {${name}} in ${path}: add one to PARAMS`);
    return value;
  });

function operations(doc: OpenApiDoc): Array<{ path: string; method: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => (METHODS as readonly string[]).includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );
}

/**
 * Every (method, path) Fastify serves, read from printRoutes({commonPrefix: false}): a tree whose
 * node labels append to their parent's path. HEAD is Fastify's automatic twin of GET, and OPTIONS
 * the CORS preflight of a cross-origin operation (http/register-routes.ts): neither is an operation.
 */
function servedRoutes(app: FastifyInstance): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    if (!line.trim()) continue;
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]+)\))?$/.exec(line);
    assert.ok(m, `unexpected printRoutes line: ${JSON.stringify(line)}`);
    const depth = (m[1] ?? '').length / 4;
    const path = (depth > 0 ? (stack[depth - 1] ?? '') : '') + (m[2] ?? '');
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      if (method && method !== 'HEAD' && method !== 'OPTIONS')
        out.push({ method, path: path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
    }
  }
  return out;
}

/**
 * What is wrong with the refusals a route table declares: an answer in the service envelope
 * (ErrorBody) that names no catalogue code, and a code whose catalogue status is not the status
 * it is declared under. OAuth errors and HTML pages are not catalogue bodies and are not held.
 */
function refusalFaults(routes: readonly RouteDef[]): string[] {
  const faults: string[] = [];
  for (const route of routes) {
    for (const [status, answer] of Object.entries(route.responses)) {
      const where = `${route.method} ${route.path} ${status}`;
      if (answer.schema === ErrorBody && !answer.codes?.length) faults.push(`${where}: an error body with no catalogue code`);
      for (const code of answer.codes ?? []) {
        const listed = ERROR_CATALOGUE[code as ErrorCode]?.status;
        if (listed !== Number(status)) faults.push(`${where}: ${code} is ${listed ?? 'not in the catalogue'}`);
      }
    }
  }
  return faults;
}

const getDoc = async (rail: TestRail) => {
  const res = await rail.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as OpenApiDoc;
};

for (const factory of testDatabases()) {
  describe(`GET /openapi.json and the route table (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let doc: OpenApiDoc;
    before(async () => {
      db = await factory.create();
      rail = await startRail(db);
      doc = await getDoc(rail);
      partner = (await livePartnerSession(rail.db)).bearer;
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    /** The JSON operations that take a request body. */
    const jsonPosts = () =>
      operations(doc).filter(({ method, op }) => method === 'post' && op.requestBody?.content?.['application/json']);

    test('is public, JSON and CORS-open', async () => {
      const res = await rail.app.inject({ method: 'GET', url: '/openapi.json' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json\b/);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.doesNotThrow(() => JSON.parse(res.body));
      // Credentials change nothing: the same document either way.
      const withOwner = await rail.app.inject({ method: 'GET', url: '/openapi.json', headers: owner });
      assert.equal(withOwner.body, res.body);
      const cross = await rail.app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: { origin: 'https://elsewhere.example' },
      });
      assert.equal(cross.statusCode, 200);
      assert.equal(cross.headers['access-control-allow-origin'], '*');
    });

    test('declares OpenAPI 3.1.0 and contract version 0.1.0', () => {
      assert.equal(doc.openapi, '3.1.0');
      assert.equal(doc.info.version, '0.1.0');
      assert.ok(Object.keys(doc.paths).length > 0);
    });

    test('every operation carries x-svc-stability promised or unpromised', () => {
      const ops = operations(doc);
      assert.ok(ops.length >= 10, `found ${ops.length} operations`);
      for (const { path, method, op } of ops) {
        assert.ok(
          op['x-svc-stability'] === 'promised' || op['x-svc-stability'] === 'unpromised',
          `${method.toUpperCase()} ${path}: ${String(op['x-svc-stability'])}`,
        );
      }
    });

    test('POST /api/tenants and its /v1 alias are present and promised; /api/tenants/update is present', () => {
      for (const path of ['/api/tenants', '/v1/tenants']) {
        const op = doc.paths[path]?.post;
        assert.ok(op, `POST ${path} is listed`);
        assert.equal(op['x-svc-stability'], 'promised', path);
      }
      assert.ok(doc.paths['/api/tenants/update']?.post, 'POST /api/tenants/update is listed');
    });

    test('POST /api/types and its /v1 alias say why their answer is unpublished (interface: the body returned by registration is not shown)', () => {
      for (const path of ['/api/types', '/v1/types']) {
        const op = doc.paths[path]?.post as Operation & { responses: Record<string, { content?: unknown }> };
        assert.ok(op, `POST ${path} is listed`);
        assert.equal(op['x-svc-stability'], 'promised', path);
        assert.equal(typeof op['x-svc-undocumented'], 'string', `POST ${path} carries x-svc-undocumented`);
        assert.ok(String(op['x-svc-undocumented']).trim().length > 10, `POST ${path} gives a reason`);
        // The answer's shape is left out of the contract; the refusals keep theirs.
        assert.equal(op.responses['201']?.content, undefined, `POST ${path}: 201 publishes no body`);
        assert.ok(op.responses['400']?.content, `POST ${path}: the 400 refusal keeps its envelope`);
      }
    });

    test('every promised operation whose interface row leaves the response unpublished or not shown says why; the others do not', () => {
      const promised = operations(doc).filter(({ op }) => op['x-svc-stability'] === 'promised');
      const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
      const listed = new Set(promised.map(({ method, path }) => key(method, path)));
      // Each row of the interface's Participation plane table, by its Response column, and its /v1 alias.
      const withheld = [
        ['POST', '/api/types', '/v1/types'],
        ['POST', '/api/tenants/{tenant}/bills', '/v1/tenants/{tenant}/bills'],
        ['POST', '/api/wallet/{accountId}/items/{itemId}/accept', '/v1/wallet/{accountId}/items/{itemId}/accept'],
        ['POST', '/api/wallet/{accountId}/items/{itemId}/sharing', '/v1/wallet/{accountId}/items/{itemId}/sharing'],
      ].flatMap(([method, ...paths]) => paths.map((path) => key(method ?? '', path)));
      const shown = [
        ['POST', '/api/tenants', '/v1/tenants'],
        ['POST', '/api/offers', '/v1/offers'],
        ['GET', '/member/me', '/v1/member/me'],
      ].flatMap(([method, ...paths]) => paths.map((path) => key(method ?? '', path)));
      assert.deepEqual([...listed].sort(), [...withheld, ...shown].sort(), 'every promised operation is one of these rows');
      for (const { path, method, op } of promised) {
        const name = key(method, path);
        const responses = (op as { responses: Record<string, { content?: unknown }> }).responses;
        if (withheld.includes(name)) {
          assert.ok(
            String(op['x-svc-undocumented'] ?? '').trim().length > 10,
            `${name} carries x-svc-undocumented with a reason`,
          );
          for (const [status, r] of Object.entries(responses)) {
            if (Number(status) < 400) assert.equal(r.content, undefined, `${name}: ${status} publishes no body`);
          }
        } else {
          assert.equal(op['x-svc-undocumented'], undefined, `${name}: the interface shows its response`);
        }
      }
    });

    test('nothing is deprecated today: no operation carries deprecated or x-svc-sunset', () => {
      for (const { path, method, op } of operations(doc)) {
        assert.equal(op.deprecated, undefined, `${method.toUpperCase()} ${path}`);
        assert.equal(op['x-svc-sunset'], undefined, `${method.toUpperCase()} ${path}`);
      }
    });

    test('the /v1 aliases are listed together under their own tag, each naming the operation it aliases', () => {
      const aliases = operations(doc).filter(({ path }) => path.startsWith('/v1/'));
      assert.ok(
        aliases.some(({ method, path }) => method === 'post' && path === '/v1/tenants'),
        'POST /v1/tenants is among them',
      );
      for (const { method, path, op } of aliases) {
        assert.deepEqual(op.tags, ['v1-aliases'], `${method} ${path}`);
        const of = String(op['x-svc-alias-of']);
        assert.ok(doc.paths[of]?.[method], `${method} ${path} aliases ${method} ${of}, which is listed`);
        assert.notDeepEqual(doc.paths[of]?.[method]?.tags, ['v1-aliases']);
      }
    });

    test('every refusal in the error envelope names its catalogue codes, each of the status it is declared under', () => {
      const routes = rail.routes.flatMap((group) => group.routes);
      assert.deepEqual(refusalFaults(routes), []);
      // The document publishes them: the description starts with the codes, and x-svc-error-codes lists them.
      let coded = 0;
      for (const { path, method, op } of operations(doc)) {
        const responses = op.responses as Record<
          string,
          { description: string; content?: Record<string, { schema?: { properties?: object } }>; 'x-svc-error-codes'?: string[] }
        >;
        for (const [status, answer] of Object.entries(responses)) {
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const codes = answer['x-svc-error-codes'];
          const envelope = answer.content?.['application/json']?.schema?.properties;
          if (Number(status) >= 400 && envelope && 'message' in envelope) assert.ok(codes?.length, `${where} names no code`);
          if (!codes) continue;
          coded++;
          for (const code of codes) assert.equal(ERROR_CATALOGUE[code as ErrorCode]?.status, Number(status), `${where}: ${code}`);
          assert.ok(answer.description.startsWith(codes[0] as string), `${where}: the description starts with the codes`);
          for (const code of codes) assert.ok(answer.description.includes(code), `${where}: the description names ${code}`);
        }
      }
      assert.ok(coded > 100, `${coded} coded refusals`);
    });

    test('operator console operations are internal and say why their shape is undocumented', () => {
      const consoleOps = operations(doc).filter(({ path }) => path === '/api/operators' || path.startsWith('/api/operators/'));
      const listed = consoleOps.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort();
      for (const expected of ['/api/operators', '/api/operators/roles', '/api/operators/suspend', '/api/operators/enable']) {
        assert.ok(listed.includes(`POST ${expected}`), `POST ${expected} is listed (${listed.join(', ')})`);
      }
      assert.ok(listed.includes('POST /api/operators/remove'));
      for (const { path, method, op } of consoleOps) {
        assert.equal(op['x-svc-internal'], true, `${method} ${path}`);
        assert.equal(typeof op['x-svc-undocumented'], 'string', `${method} ${path}`);
        assert.ok(String(op['x-svc-undocumented']).trim().length > 10, `${method} ${path} gives a reason`);
        // An internal operation is never part of the versioned surface.
        assert.ok(!path.startsWith('/v1/'), path);
      }
    });

    test('every documented request body has an example, and every example is a body its operation accepts', () => {
      // The rules of the routes' own validation (http/app.ts): no coercion, formats and patterns checked.
      const ajv = requestAjv(true);
      const withBody = operations(doc).filter(({ op }) => op.requestBody?.content);
      assert.ok(withBody.length >= 20, `${withBody.length} operations take a body`);
      let checked = 0;
      for (const { path, method, op } of withBody) {
        const name = `${method.toUpperCase()} ${path}`;
        for (const [media, { schema, example }] of Object.entries(op.requestBody?.content ?? {})) {
          if (example === undefined) {
            assert.ok(
              op['x-svc-undocumented'] !== undefined || name in WITHOUT_EXAMPLE,
              `${name} (${media}) has no example: give its body schema \`examples: [{ ... }]\``,
            );
            continue;
          }
          assert.ok(!(name in WITHOUT_EXAMPLE), `${name} has an example now: take it off WITHOUT_EXAMPLE`);
          assert.ok(example !== null && typeof example === 'object' && !Array.isArray(example), `${name}: an object`);
          assert.deepEqual(example, (schema as { examples?: unknown[] }).examples?.[0], `${name}: the schema's first example`);
          const validate = ajv.compile(schema as object);
          assert.ok(validate(example), `${name}: its example is refused by its schema: ${ajv.errorsText(validate.errors)}`);
          // The edge's own rule for every body (docs/security.md) passes it as well.
          assert.doesNotThrow(() => assertWellFormedBody(example), name);
          checked++;
        }
      }
      assert.ok(checked >= 20, `${checked} examples checked`);
      for (const name of Object.keys(WITHOUT_EXAMPLE)) {
        const [method = '', path = ''] = name.split(' ');
        assert.ok(doc.paths[path]?.[method.toLowerCase()]?.requestBody, `WITHOUT_EXAMPLE names ${name}, which takes no body`);
      }
    });

    test('every security scheme is one an API viewer can authorize with (a bearer, basic, or an API key)', () => {
      const schemes = Object.entries(
        (doc.components as { securitySchemes: Record<string, Record<string, string>> }).securitySchemes,
      );
      assert.ok(schemes.length >= 4, `${schemes.length} schemes`);
      for (const [name, scheme] of schemes) {
        const ok =
          (scheme.type === 'http' && ['bearer', 'basic'].includes(String(scheme.scheme).toLowerCase())) ||
          (scheme.type === 'apiKey' && ['header', 'cookie', 'query'].includes(scheme.in ?? '') && Boolean(scheme.name));
        assert.ok(ok, `${name}: ${JSON.stringify(scheme)}`);
        assert.ok(scheme.description, `${name} says how to use it`);
      }
    });

    test('secured operations reference a defined security scheme', () => {
      const schemes = doc.components?.securitySchemes ?? {};
      let secured = 0;
      for (const { path, method, op } of operations(doc)) {
        if (op.security === undefined) continue;
        assert.ok(Array.isArray(op.security) && op.security.length > 0, `${method} ${path}`);
        for (const requirement of op.security) {
          for (const name of Object.keys(requirement)) {
            secured++;
            const scheme = schemes[name];
            assert.ok(scheme, `${method.toUpperCase()} ${path} references undefined scheme ${name}`);
            assert.ok(typeof scheme.type === 'string' && scheme.type.length > 0, name);
          }
        }
      }
      assert.ok(secured > 0, 'some operations are secured');
      assert.ok(doc.paths['/api/tenants']?.post?.security, 'POST /api/tenants is secured');
      assert.equal(doc.paths['/api/login']?.post?.security, undefined, 'sign-in is public');
      assert.equal(doc.paths['/openapi.json']?.get?.security, undefined);
    });

    test('every listed operation is routed', async () => {
      for (const { path, method, op } of operations(doc)) {
        const url = fill(path);
        assert.ok(rail.app.hasRoute({ method: method.toUpperCase() as 'GET', url: path.replace(/\{([^}]+)\}/g, ':$1') }), path);
        const res = await rail.app.inject({ method: method.toUpperCase() as 'GET' | 'POST', url });
        // A page names its refusal's code on the error page; everything else in JSON (read only for a refusal).
        const errorOf = () =>
          String(
            res.headers['content-type']?.toString().startsWith('text/html')
              ? /Error <code>([a-z_]+)<\/code>/.exec(res.body)?.[1]
              : res.json().error,
          );
        const notFound = res.statusCode === 404 && errorOf() === 'not_found';
        assert.ok(!notFound, `${method.toUpperCase()} ${url} is listed but answers ${res.statusCode} ${res.body}`);
        assert.ok(res.statusCode < 500, `${method.toUpperCase()} ${url}: ${res.statusCode} ${res.body}`);
        // A public read answers, or names the resource the placeholder values do not find, or
        // (sent without its required query) refuses the request by its schema.
        const needsQuery = (op as { parameters?: Array<{ in: string; required?: boolean }> }).parameters?.some(
          (p) => p.in === 'query' && p.required,
        );
        if (
          method === 'get' &&
          op.security === undefined &&
          !(res.statusCode === 404 && errorOf().startsWith('unknown_')) &&
          !(needsQuery && res.statusCode === 400 && errorOf() === 'invalid_request')
        ) {
          assert.equal(res.statusCode, 200, `public ${url}: ${res.body}`);
        }
      }
    });

    test('every served operation is listed', () => {
      const served = servedRoutes(rail.app);
      assert.ok(
        served.some((r) => r.method === 'GET' && r.path === '/openapi.json'),
        'the route listing was read',
      );
      assert.ok(served.length >= operations(doc).length, `${served.length} served`);
      for (const { method, path } of served) {
        assert.ok(doc.paths[path]?.[method.toLowerCase()], `${method} ${path} is served but not in openapi.json`);
      }
    });

    test('an unknown path answers 404 in the error envelope', async () => {
      for (const [method, url] of [
        ['GET', '/no/such/thing'],
        ['POST', '/api/no-such-operation'],
        ['GET', '/v1/not-here?x=1'],
        ['DELETE', '/no/such/thing'],
      ] as const) {
        const res = await rail.app.inject({ method, url, headers: owner });
        assert.equal(res.statusCode, 404, `${method} ${url}`);
        assert.match(String(res.headers['content-type']), /^application\/json\b/);
        const body = res.json();
        assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
        assert.equal(body.error, 'not_found');
        assert.equal(typeof body.message, 'string');
        assert.ok(!body.message.includes('x=1'), 'the query string is not echoed');
      }
    });

    test('a served path asked with another method answers 405 with Allow', async () => {
      const cases = [
        ['DELETE', '/api/tenants', 'POST'],
        ['GET', '/api/tenants', 'POST'],
        ['POST', '/verify', 'GET, HEAD'],
        ['PUT', '/t/some-tenant/did.json', 'GET, HEAD'],
        ['DELETE', '/v1/tenants', 'POST'],
      ] as const;
      for (const [method, url, allow] of cases) {
        const res = await rail.app.inject({ method, url, headers: owner });
        assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
        assert.equal(res.headers.allow, allow, `${method} ${url}`);
        assert.equal(res.json().error, 'method_not_allowed');
      }
    });

    test('malformed JSON on any JSON POST answers 400 malformed_json (its OAuth code on OAuth routes), never 5xx, once authenticated', async () => {
      const posts = jsonPosts();
      assert.ok(posts.length >= 5, `${posts.length} JSON operations`);
      const tenantsBefore = (await rail.db.selectFrom('tenants').select('slug').execute()).length;
      for (const { path, op } of posts) {
        const credential = credentialFor(op);
        const needsOne = credential === undefined || Object.keys(credential).length > 0;
        for (const payload of ['{"name": ', '{', '[1,', "{'name': 'x'}", 'nul', '{"a":1}}', '']) {
          for (const headers of [{}, credential ?? owner]) {
            const res = await rail.app.inject({
              method: 'POST',
              url: fill(path),
              headers: { ...headers, 'content-type': 'application/json' },
              payload,
            });
            const what = `POST ${path} ${JSON.stringify(payload)}: ${res.body}`;
            if (needsOne && headers !== credential) {
              // Authentication comes first: without the plane's credential the body is never read.
              assert.equal(res.statusCode, 401, what);
              continue;
            }
            assert.equal(res.statusCode, 400, what);
            // The OID4VCI credential endpoint names it in its own terms (docs/errors.md).
            assert.equal(res.json().error, path.endsWith('/credential') ? 'invalid_credential_request' : 'malformed_json', what);
          }
        }
      }
      assert.equal((await rail.db.selectFrom('tenants').select('slug').execute()).length, tenantsBefore);
    });

    const refusesMediaType = async (cases: ReadonlyArray<readonly [string, string]>) => {
      const tenantsBefore = (await rail.db.selectFrom('tenants').select('slug').execute()).length;
      for (const { path, op } of jsonPosts()) {
        const credential = credentialFor(op);
        for (const [type, payload] of cases) {
          const res = await rail.app.inject({
            method: 'POST',
            url: fill(path),
            headers: { ...(credential ?? {}), 'content-type': type },
            payload,
          });
          const what = `POST ${path} as ${type}: ${res.statusCode} ${res.body}`;
          // Without the plane's credential (an access token or a holder JWS, which this suite holds
          // none of) the answer is 401 before the media type is looked at.
          assert.equal(res.statusCode, credential ? 415 : 401, what);
          // The OAuth access token's plane answers in OAuth's terms; the holder's and the result token's in ours.
          const scheme = Object.keys(op.security?.[0] ?? {})[0];
          const unauthenticated = scheme === 'holderJws' || scheme === 'resultToken' ? 'unauthorized' : 'invalid_token';
          assert.equal(res.json().error, credential ? 'unsupported_media_type' : unauthenticated, what);
        }
      }
      assert.equal((await rail.db.selectFrom('tenants').select('slug').execute()).length, tenantsBefore);
    };

    test('an XML or form body on a JSON operation answers 415 unsupported_media_type', async () => {
      await refusesMediaType([
        ['application/xml', '<name>Xml Co</name>'],
        ['application/x-www-form-urlencoded', 'name=Form+Co'],
      ]);
    });

    test('a text/plain body on a JSON operation answers 415 unsupported_media_type', async () => {
      await refusesMediaType([
        ['text/plain', '{"name":"Plain Text Co"}'],
        ['text/plain; charset=utf-8', 'name=Plain'],
      ]);
    });

    describe('with the console-operators group unmounted', () => {
      let unmounted: TestRail;
      before(async () => {
        unmounted = await startRail(db, { OPENRAIL_UNMOUNTED_GROUPS: 'console-operators' });
      });
      after(async () => {
        await unmounted.stop();
      });

      test('the operator console disappears from openapi.json and answers 404 not_found', async () => {
        const reduced = await getDoc(unmounted);
        const listed = Object.keys(reduced.paths);
        assert.ok(!listed.some((p) => p === '/api/operators' || p.startsWith('/api/operators/')), listed.join(', '));
        assert.ok(reduced.paths['/api/tenants']?.post, 'other groups stay mounted');
        assert.ok(reduced.paths['/api/login']?.post, 'sign-in is its own group');

        const before = (await unmounted.db.selectFrom('operators').select('username').execute()).length;
        const body = { username: 'ghost', password: 'a-long-enough-password', roles: ['issuer'] };
        for (const url of ['/api/operators', '/api/operators/roles', '/api/operators/suspend']) {
          const res = await unmounted.app.inject({ method: 'POST', url, headers: owner, payload: body });
          assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
          assert.equal(res.json().error, 'not_found');
          assert.equal(typeof res.json().message, 'string');
        }
        assert.equal((await unmounted.db.selectFrom('operators').select('username').execute()).length, before);

        // The fully mounted rail on the same database still serves it.
        const mounted = await rail.app.inject({ method: 'POST', url: '/api/operators', headers: owner, payload: body });
        assert.equal(mounted.statusCode, 201, mounted.body);
      });

      test('the reduced document lists exactly what is served', async () => {
        const reduced = await getDoc(unmounted);
        const served = servedRoutes(unmounted.app);
        assert.ok(!served.some((r) => r.path.startsWith('/api/operators')));
        assert.ok(served.some((r) => r.path === '/api/login'));
        for (const { method, path } of served) assert.ok(reduced.paths[path]?.[method.toLowerCase()], `${method} ${path}`);
        const listed = operations(reduced).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
        assert.deepEqual(listed.sort(), served.map(({ method, path }) => `${method} ${path}`).sort());
      });
    });

    test('an unknown group name in OPENRAIL_UNMOUNTED_GROUPS stops the start', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'openrail-unmount-'));
      try {
        await assert.rejects(
          startRail(db, { OPENRAIL_UNMOUNTED_GROUPS: 'console-operators, no-such-group', OPENRAIL_DATA_DIR: dataDir }),
          (err: Error) => {
            assert.match(err.message, /OPENRAIL_UNMOUNTED_GROUPS/);
            assert.match(err.message, /no-such-group/);
            return true;
          },
        );
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      // The failed start left the database usable.
      assert.equal((await rail.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    });
  });
}

/**
 * Versioning 7: a promised operation is retired only after it is marked `deprecated: true` with an
 * `x-svc-sunset` date, announced, and kept answering for at least 180 days. Nothing is deprecated
 * today, so a fixture route declared here carries the mark (docs/decisions/0001-route-table.md,
 * "Deprecation").
 */
const DEPRECATION = { since: '2026-01-15', sunset: '2026-07-15', link: 'https://rail.example.test/docs/deprecations' };

describe('the refusal check, on fixture declarations', () => {
  const declaring = (responses: RouteDef['responses']) =>
    defineRoute({
      method: 'GET',
      path: '/fixture/refusals',
      auth: 'public',
      stability: 'unpromised',
      summary: 'A fixture operation.',
      responses: { 200: { description: 'Fine.' }, ...responses },
      handler: async () => ({}),
    });

  test('a refusal of its own status passes', () => {
    assert.deepEqual(refusalFaults([declaring({ 404: refusal(['unknown_tenant', 'unknown_type'], 'a note.') })]), []);
  });

  test('a code declared under another status than its own fails', () => {
    assert.deepEqual(refusalFaults([declaring({ 409: refusal(['conflict', 'unknown_tenant']) })]), [
      'GET /fixture/refusals 409: unknown_tenant is 404',
    ]);
  });

  test('an error body that names no code fails', () => {
    assert.deepEqual(refusalFaults([declaring({ 400: { description: 'Bad.', schema: ErrorBody } })]), [
      'GET /fixture/refusals 400: an error body with no catalogue code',
    ]);
  });

  test('a refusal names at least one code, and only catalogue codes (the typecheck refuses another)', () => {
    assert.throws(() => refusal([]), /at least one/);
    // @ts-expect-error: not a catalogue code
    const typo = refusal('unknown_tenat');
    assert.deepEqual(refusalFaults([declaring({ 404: typo })]), [
      'GET /fixture/refusals 404: unknown_tenat is not in the catalogue',
    ]);
  });
});

const fixtureRoute = (deprecated: Partial<typeof DEPRECATION> | undefined) =>
  defineRoute({
    method: 'GET',
    path: '/fixture/deprecated/{thing}',
    aliases: ['/v1/fixture/deprecated/{thing}'],
    auth: 'public',
    stability: 'promised',
    cors: true,
    summary: 'A fixture operation marked deprecated.',
    ...(deprecated ? { deprecated: deprecated as typeof DEPRECATION } : {}),
    params: Type.Object({ thing: Type.String({ pattern: '^[a-z]{1,10}$' }) }),
    querystring: Type.Object({}, { additionalProperties: false }),
    responses: {
      200: { description: 'The thing.', schema: Type.Object({ thing: Type.String() }) },
      400: refusal('invalid_request'),
    },
    handler: async (request) => ({ thing: request.params.thing }),
  });

const fixtureModule = defineModule({
  name: 'deprecation-fixture',
  groups: ['deprecation-fixture'],
  build: () => ({ services: {}, routes: () => [{ name: 'deprecation-fixture', routes: [fixtureRoute(DEPRECATION)] }] }),
});

describe('deprecation (Versioning 7), on a fixture route', () => {
  let db: TestDatabase;
  let rail: TestRail;
  before(async () => {
    const [sqlite] = testDatabases();
    assert.ok(sqlite);
    db = await sqlite.create();
    rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false, extraModules: [fixtureModule] });
  });
  after(async () => {
    await rail.stop();
    await db.drop();
  });

  test('the operation and its alias are listed deprecated, with their sunset date', async () => {
    const doc = await getDoc(rail);
    for (const path of ['/fixture/deprecated/{thing}', '/v1/fixture/deprecated/{thing}']) {
      const op = doc.paths[path]?.get;
      assert.ok(op, path);
      assert.equal(op.deprecated, true, path);
      assert.equal(op['x-svc-sunset'], DEPRECATION.sunset, path);
      assert.equal(op['x-svc-deprecated-since'], DEPRECATION.since, path);
      assert.equal(op['x-svc-stability'], 'promised', 'a deprecated operation is still promised until it is retired');
    }
    // The rest of the document is as it was.
    assert.equal(doc.paths['/api/tenants']?.post?.deprecated, undefined);
  });

  test('every answer of the operation carries Deprecation (RFC 9745) and Sunset (RFC 8594), errors included', async () => {
    const cases = [
      ['/fixture/deprecated/abc', 200],
      ['/v1/fixture/deprecated/abc', 200],
      ['/fixture/deprecated/abc?unexpected=1', 400],
      ['/fixture/deprecated/NOT-A-THING', 400],
    ] as const;
    for (const [url, status] of cases) {
      const res = await rail.app.inject({ method: 'GET', url, headers: { origin: 'https://elsewhere.example' } });
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      // RFC 9745 §2.1: a structured-field Date, seconds since the epoch after "@".
      assert.equal(res.headers.deprecation, `@${Date.UTC(2026, 0, 15) / 1000}`, url);
      // RFC 8594 §3: an HTTP-date (IMF-fixdate).
      assert.equal(res.headers.sunset, 'Wed, 15 Jul 2026 00:00:00 GMT', url);
      assert.equal(res.headers.link, `<${DEPRECATION.link}>; rel="deprecation"; type="text/html"`, url);
      // A script on another origin may read them.
      const exposed = String(res.headers['access-control-expose-headers'])
        .toLowerCase()
        .split(/\s*,\s*/);
      for (const name of ['deprecation', 'sunset', 'link']) assert.ok(exposed.includes(name), `${url} exposes ${name}`);
    }
  });

  test('an operation that is not deprecated answers without them', async () => {
    for (const url of ['/openapi.json', '/readyz']) {
      const res = await rail.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers.deprecation, undefined, url);
      assert.equal(res.headers.sunset, undefined, url);
    }
    const refused = await rail.app.inject({ method: 'POST', url: '/api/tenants', payload: { name: 'x' } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers.deprecation, undefined);
  });

  test('a mark the interface does not allow stops the start: a sunset under 180 days after the announcement, or a date that is not one', () => {
    const planes = new Map([['public', publicPlane]]) as Parameters<typeof buildApp>[0]['planes'];
    const build = (deprecated: Partial<typeof DEPRECATION>) =>
      buildApp({
        groups: [{ name: 'fixture', routes: [fixtureRoute(deprecated)] }],
        planes,
        publicOrigin: 'https://rail.example.test',
      });
    assert.throws(() => build({ since: '2026-01-15', sunset: '2026-07-13' }), /\/fixture\/deprecated\/\{thing\}.*180 days/);
    assert.throws(() => build({ since: '2026-01-15', sunset: 'next summer' }), /sunset/);
    assert.throws(() => build({ since: '2026-02-30', sunset: '2027-01-01' }), /since/);
    assert.throws(() => build({ sunset: '2027-01-01' }), /since/);
    // 180 days exactly is enough.
    assert.doesNotThrow(() => build({ since: '2026-01-15', sunset: '2026-07-14' }));
  });
});
