/**
 * The operator web apps read what they offer from the service's own contract document (the one
 * GET /openapi.json answers): every operator-plane operation with its summary, roles, tenant scope,
 * parameters and body schema. A page is never given more than the operation behind it admits.
 */

/** A JSON Schema as the contract document carries it (TypeBox output, plain JSON). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  description?: string;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  examples?: unknown[];
}

export interface Param {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: 'GET' | 'POST';
  /** The path template, `{name}` for parameters (`/api/admin/orgs/{slug}`). */
  path: string;
  summary: string;
  /** The route group (the operation's first tag). */
  group: string;
  roles: string[];
  /** x-svc-tenant-scope: `platform`, `none`, `list` or `<where>.<field>`. */
  scope: string | undefined;
  pathParams: string[];
  query: Param[];
  body: JsonSchema | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The operator-plane GET and POST operations of the document (aliases under /v1 left out). */
export function operatorOperations(doc: unknown): Operation[] {
  const paths = isRecord(doc) && isRecord(doc.paths) ? doc.paths : {};
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item) || path.startsWith('/v1/')) continue;
    for (const method of ['get', 'post'] as const) {
      const op = item[method];
      if (!isRecord(op) || op['x-svc-auth'] !== 'operator') continue;
      const parameters = Array.isArray(op.parameters) ? op.parameters.filter(isRecord) : [];
      const content = isRecord(op.requestBody) && isRecord(op.requestBody.content) ? op.requestBody.content : {};
      const json = content['application/json'];
      operations.push({
        method: method === 'get' ? 'GET' : 'POST',
        path,
        summary: typeof op.summary === 'string' ? op.summary : path,
        group: Array.isArray(op.tags) && typeof op.tags[0] === 'string' ? op.tags[0] : 'other',
        roles: Array.isArray(op['x-svc-roles']) ? op['x-svc-roles'].filter((r): r is string => typeof r === 'string') : [],
        scope: typeof op['x-svc-tenant-scope'] === 'string' ? op['x-svc-tenant-scope'] : undefined,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: String(p.name), required: p.required === true, schema: (p.schema ?? {}) as JsonSchema })),
        body: isRecord(json) && isRecord(json.schema) ? (json.schema as JsonSchema) : undefined,
      });
    }
  }
  return operations;
}

const segments = (path: string) => path.split('/').slice(1);

/**
 * The parameters of `path` under `template`, decoded, or undefined when it does not match. A
 * parameter matches one whole, non-empty segment.
 */
export function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const want = segments(template);
  const got = segments(path);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? '';
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    if (name === undefined) {
      if (part !== value) return undefined;
      continue;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(value);
    } catch {
      return undefined;
    }
    // A dot segment names no thing: URL parsing would resolve it away (see fillTemplate).
    if (decoded === '' || decoded === '.' || decoded === '..') return undefined;
    params[name] = decoded;
  }
  return params;
}

/** The operation of `method` that `path` names, preferring literal segments over parameters. */
export function findOperation(
  operations: readonly Operation[],
  method: 'GET' | 'POST',
  path: string,
): { op: Operation; params: Record<string, string> } | undefined {
  let best: { op: Operation; params: Record<string, string> } | undefined;
  for (const op of operations) {
    if (op.method !== method) continue;
    const params = matchTemplate(op.path, path);
    if (params && (!best || Object.keys(params).length < Object.keys(best.params).length)) best = { op, params };
  }
  return best;
}

/** A template with its parameters filled in, each value encoded as one path segment. */
export function fillTemplate(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new MissingParam(name);
    // A dot segment would be resolved away by URL parsing, and the path would name another operation.
    if (value === '.' || value === '..') throw new MissingParam(name);
    return encodeURIComponent(value);
  });
}

/** A path parameter that is missing, empty or a dot segment. */
export class MissingParam extends Error {
  constructor(readonly param: string) {
    super(`${param} is missing or is not a value a path can carry`);
  }
}

/** Whether an operator with these roles and tenant may use the operation at all. */
export function admits(op: Operation, who: { roles: readonly string[]; tenant: string | null }): boolean {
  if (who.tenant !== null && op.scope === 'platform') return false;
  return op.roles.some((role) => who.roles.includes(role));
}
