import type { TSchema } from '@sinclair/typebox';
import type { AuthPlane, PlaneName } from './auth/principal.ts';
import type { RouteDef, RouteGroup, TenantScope } from './route.ts';
import { refusal } from './schemas/common.ts';

export const OPENAPI_INFO_VERSION = '0.1.0';

/** The tag of the versioned aliases (`/v1/...`) of promised operations. */
export const V1_ALIASES_TAG = 'v1-aliases';

/** Drops TypeBox's symbol keys and undefined values by round-tripping through JSON. */
const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));

/**
 * The first of a body schema's `examples`, published as its media type's `example`: an API viewer
 * shows it as the request to send instead of making one up from the schema, which for a field with
 * a `pattern` gives a string no one would write (test/http/openapi.test.ts checks each validates).
 */
function exampleOf(schema: TSchema): unknown {
  const examples: unknown = schema.examples;
  return Array.isArray(examples) && examples.length > 0 ? JSON.parse(JSON.stringify(examples[0])) : undefined;
}

function operationId(method: string, path: string): string {
  const words = path
    .replace(/\{([^}]+)\}/g, 'by-$1')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [method.toLowerCase(), ...words].join('_');
}

/**
 * The refusal every operation that spends an anonymous budget can give (its own, or the holder
 * plane's for the replay mark it stores): listed whether or not the route names it.
 */
const BUDGET_REFUSAL = refusal(
  'rate_limited',
  'an anonymous budget is spent (docs/security.md, "Anonymous budgets"); Retry-After says when to ask again.',
);

/** Every anonymous budget an operation spends: its own, its handler's, and the holder plane's. */
function budgetsOf(route: RouteDef): string[] {
  const all = [
    ...(route.budget ? [route.budget] : []),
    ...(route.spends ?? []),
    ...(route.auth === 'holder' ? ['holder-request'] : []),
  ];
  return [...new Set(all)];
}

function operation(route: RouteDef, path: string, group: string, plane: AuthPlane | undefined) {
  const responses: Record<string, unknown> = {};
  const budgets = budgetsOf(route);
  const declared = { ...route.responses };
  if (budgets.length > 0 && !declared[429]) declared[429] = BUDGET_REFUSAL;
  for (const [status, r] of Object.entries(declared)) {
    const published = !route.undocumented || Number(status) >= 400;
    const media = r.contentType ?? 'application/json';
    responses[status] = {
      ...(published && (r.schema || r.contentType)
        ? { description: r.description, content: { [media]: r.schema ? { schema: plain(r.schema) } : {} } }
        : { description: r.description }),
      // The catalogue codes a refusal answers with (http/schemas/common.ts, `refusal`).
      ...(r.codes ? { 'x-svc-error-codes': [...r.codes] } : {}),
    };
  }
  const alias = path !== route.path;
  const op: Record<string, unknown> = {
    operationId: operationId(route.method, path),
    summary: route.summary,
    // The /v1 aliases are listed together under a tag of their own, so that a viewer does not show
    // every versioned operation twice among the others without a word.
    tags: [alias ? V1_ALIASES_TAG : group],
    responses,
    'x-svc-stability': route.stability,
    'x-svc-auth': route.auth,
  };
  // OpenAPI 3.1 §4.8.30: an empty requirement beside the scheme makes the credential optional.
  if (plane?.security) op.security = [{ [plane.security.name]: [] }, ...(route.credentialOptional ? [{}] : [])];
  if (route.roles) op['x-svc-roles'] = [...route.roles];
  if (route.scope) op['x-svc-tenant-scope'] = tenantScopeLabel(route.scope);
  if (route.internal) op['x-svc-internal'] = true;
  if (budgets.length > 0) op['x-svc-anonymous-budgets'] = budgets;
  if (route.undocumented) op['x-svc-undocumented'] = route.undocumented;
  // Versioning 7: marked, with its sunset; the announcement as the operation's external documentation.
  if (route.deprecated) {
    op.deprecated = true;
    op['x-svc-sunset'] = route.deprecated.sunset;
    op['x-svc-deprecated-since'] = route.deprecated.since;
    if (route.deprecated.link) op.externalDocs = { description: 'The deprecation notice.', url: route.deprecated.link };
  }
  if (alias) {
    op.description = `Alias of ${route.method} ${route.path}: same handler, auth, body and response.`;
    op['x-svc-alias-of'] = route.path;
  }
  const parameters = [...paramsOf(route.params, 'path'), ...paramsOf(route.querystring, 'query')];
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    const mediaType = route.accepts === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
    const example = exampleOf(route.body);
    op.requestBody = {
      required: !route.bodyOptional,
      content: { [mediaType]: { schema: plain(route.body), ...(example === undefined ? {} : { example }) } },
    };
  }
  return op;
}

/**
 * Where an operator operation finds its tenant, for a console deciding what to offer a scoped
 * operator: `platform`, `none`, `<where>.<field>` (`params.slug`), or `list` (an optional
 * `?tenant=`; a scoped credential sees its own).
 */
function tenantScopeLabel(scope: TenantScope): string {
  if (typeof scope === 'string') return scope;
  return 'list' in scope ? 'list' : `${scope.tenantIn}.${scope.field ?? 'tenant'}`;
}

function paramsOf(schema: TSchema | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: plain(s),
  }));
}

/** The contract document, derived from the mounted route table only. */
export function buildOpenApi(
  groups: RouteGroup[],
  planes: ReadonlyMap<PlaneName, AuthPlane>,
  serverUrl: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const securitySchemes: Record<string, unknown> = {};
  for (const group of groups) {
    for (const route of group.routes) {
      const plane = planes.get(route.auth);
      if (plane?.security) securitySchemes[plane.security.name] = plane.security.scheme;
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        paths[path] ??= {};
        paths[path][route.method.toLowerCase()] = operation(route, path, group.name, plane);
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'openrail',
      version: OPENAPI_INFO_VERSION,
      description: 'Credential trust service. Only the operations this deployment mounts are listed.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: { securitySchemes },
  };
}
