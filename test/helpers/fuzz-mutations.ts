/**
 * The mutation engine of the operation fuzz (test/security/fuzz.test.ts): from one operation's
 * declared schemas (as the served /openapi.json publishes them) it builds a plausible request and a
 * catalogue of hostile variants of it, then draws a bounded sample with a seeded PRNG, so the same
 * seed always sends the same requests and a failure reproduces.
 *
 * Nothing here knows an operation by name: everything is derived from the schemas it is given (the
 * test supplies a schema of its own only where a protocol endpoint leaves its body open), so an
 * operation declared tomorrow is fuzzed too.
 */

/** The subset of JSON Schema (as TypeBox emits it) the fuzz reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  minProperties?: number;
}

export interface ParamShape {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

/** What the fuzz needs to know of one operation. */
export interface OperationShape {
  method: string;
  /** The path template, `{name}` for parameters. */
  path: string;
  params: ParamShape[];
  /** The body the operation takes, if any: its media type and schema (`{}` when the route takes a form it does not describe). */
  body?: { media: 'json' | 'form'; schema: JsonSchema };
}

/** One request to send: raw (already percent-encoded) path segments and query, and a body as text. */
export interface FuzzRequest {
  mutation: string;
  /** The mutation without its target (`NUL at <field>`): what a report groups by. */
  family: string;
  /** Path parameter name to its raw segment, exactly as it goes on the request line. */
  path: Record<string, string>;
  /** The raw query string, without `?`; empty for none. */
  query: string;
  body?: { contentType: string; text: string };
}

/**
 * Stand-in for the holder account in paths and bodies: the request is built before the key that
 * signs it exists, and the sender swaps in the account of the key it signs with. Shaped like an
 * account id (43 base64url characters) so the schema lets it through.
 */
export const ACCOUNT_SLOT = `fuzzACCOUNTslot${'0'.repeat(28)}`;

/**
 * Stand-in for two bytes that are not UTF-8 (0xC3 0x28): JSON and form bodies are built as text,
 * and the sender replaces this marker by the bytes (see payloadOf).
 */
export const BAD_UTF8 = '__fuzz_bad_utf8__';

/** The body bytes of a request: the text, with BAD_UTF8 turned into bytes that are not UTF-8. */
export function payloadOf(text: string): string | Buffer {
  if (!text.includes(BAD_UTF8)) return text;
  const parts = text.split(BAD_UTF8).map((p) => Buffer.from(p, 'utf8'));
  const bad = Buffer.from([0xc3, 0x28]);
  return Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [bad, p])));
}

// --- a seeded PRNG -------------------------------------------------------------------------------

/** FNV-1a: a 32-bit seed from a string (the run's seed and the operation), so each operation's draw is its own. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** mulberry32: small, fast and deterministic; cryptographic quality is not the point here. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// --- a plausible value for a schema --------------------------------------------------------------

/**
 * Strings tried, in order, against a pattern the schema declares: a value that matches lets the
 * request past validation to the field the mutation aims at, and on to the handler.
 */
const STRING_CANDIDATES = [
  'alpha',
  'Fuzz text',
  '1',
  '123456',
  '2024-01-01',
  'a@b.example',
  'https://rp.example/fuzz',
  '#336699',
  'EUR',
  'BE',
  'id.alpha.example',
  'abcdefghijklmnop',
  'A'.repeat(43),
  'x',
];

/** `^prefix_[A-Za-z0-9_-]{22}$` and friends: the service's identifiers, each with its own prefix. */
const PREFIXED_ID = /^\^([a-z]+)_\[A-Za-z0-9_-\]\{(\d+)(?:,\d+)?\}\$$/;

function stringExample(s: JsonSchema): string {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Number.POSITIVE_INFINITY;
  if (s.format === 'date-time') return '2024-01-01T00:00:00Z';
  const fits = (v: string) => v.length >= min && v.length <= max && (!s.pattern || new RegExp(s.pattern, 'u').test(v));
  const prefixed = s.pattern ? PREFIXED_ID.exec(s.pattern) : null;
  if (prefixed) {
    const id = `${prefixed[1]}_${'A'.repeat(Number(prefixed[2]))}`;
    if (fits(id)) return id;
  }
  const found = STRING_CANDIDATES.find(fits);
  return found ?? 'x'.repeat(Math.max(1, min));
}

/** The first branch of a union that is not `null`: what a well-formed request would most likely send. */
function branchOf(s: JsonSchema): JsonSchema {
  const branches = s.anyOf ?? s.oneOf;
  if (!branches) return s;
  return branches.find((b) => b.type !== 'null') ?? branches[0] ?? {};
}

function typeOf(s: JsonSchema): string | undefined {
  const b = branchOf(s);
  if (Array.isArray(b.type)) return b.type.find((t) => t !== 'null');
  if (b.type) return b.type;
  if (b.properties || b.patternProperties) return 'object';
  if (b.const !== undefined) return typeof b.const;
  return undefined;
}

/**
 * A value the schema accepts, as far as a few rules can tell: required properties (and optional
 * ones up to minProperties), real
 * values where the caller knows them (`known`, by property name: the tenant, a type id), and a
 * pattern matched from a short list of candidates.
 */
export function example(schema: JsonSchema, known: Record<string, unknown>, name?: string): unknown {
  if (name !== undefined && Object.hasOwn(known, name)) return known[name];
  const s = branchOf(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum && s.enum.length > 0) return s.enum[0];
  switch (typeOf(s)) {
    case 'string':
      return stringExample(s);
    case 'integer':
    case 'number': {
      const low = s.minimum ?? 0;
      const value = Math.min(Math.max(low, 1), s.maximum ?? Number.POSITIVE_INFINITY);
      return typeOf(s) === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => example(s.items ?? {}, known));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = example(s.properties?.[key] ?? {}, known, key);
      // An object that must say something (an update of at least one field) gets optional fields
      // until it does.
      for (const [key, child] of Object.entries(s.properties ?? {})) {
        if (Object.keys(out).length >= (s.minProperties ?? 0)) break;
        if (!Object.hasOwn(out, key)) out[key] = example(child, known, key);
      }
      return out;
    }
    default:
      return {};
  }
}

// --- where a mutation can aim ---------------------------------------------------------------------

/** A field of the body: its path from the root, and its schema. */
export interface Leaf {
  at: (string | number)[];
  schema: JsonSchema;
}

/** Every property of the body down to three levels (the first element standing for an array's), required or not. */
export function leavesOf(schema: JsonSchema, at: (string | number)[] = [], depth = 0): Leaf[] {
  const s = branchOf(schema);
  const out: Leaf[] = [];
  if (depth >= 3) return out;
  for (const [key, child] of Object.entries(s.properties ?? {})) {
    out.push({ at: [...at, key], schema: child });
    const kind = typeOf(child);
    if (kind === 'object') out.push(...leavesOf(child, [...at, key], depth + 1));
    if (kind === 'array') {
      const items = branchOf(child).items ?? {};
      out.push({ at: [...at, key, 0], schema: items });
      if (typeOf(items) === 'object') out.push(...leavesOf(items, [...at, key, 0], depth + 1));
    }
  }
  return out;
}

const label = (at: (string | number)[]) => at.map(String).join('.') || '(body)';

/** A copy of `root` with `value` at `at`, the containers on the way made from their schemas where missing. */
function setAt(root: unknown, at: (string | number)[], value: unknown): unknown {
  if (at.length === 0) return value;
  const [head, ...rest] = at as [string | number, ...(string | number)[]];
  const container: Record<string | number, unknown> | unknown[] = Array.isArray(root)
    ? [...root]
    : root !== null && typeof root === 'object'
      ? { ...(root as Record<string, unknown>) }
      : typeof head === 'number'
        ? []
        : {};
  const current = (container as Record<string | number, unknown>)[head];
  const next = current ?? (typeof rest[0] === 'number' ? [] : {});
  (container as Record<string | number, unknown>)[head] = setAt(next, rest, value);
  return container;
}

/**
 * A piece of JSON text spliced in where a value would be: numbers JSON.stringify cannot write
 * (an integer beyond 2^53 as the client wrote it, `-0`), nesting built as text, bytes that are
 * not UTF-8.
 */
class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of `value`, each RawJson spliced in verbatim. */
function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `__fuzz_raw_${raws.length - 1}__`;
    }
    return v;
  });
  return raws.reduce((out, raw, i) => out.replace(`"__fuzz_raw_${i}__"`, () => raw), text ?? '');
}

const nestedArrays = (depth: number) => new RawJson(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
const nestedObjects = (depth: number) => new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

/** 100 KB and 2 MB: past every declared maxLength, and past the 1 MiB body limit. */
const KB100 = 'a'.repeat(100 * 1024);
const MB2 = 'a'.repeat(2 * 1024 * 1024);

/** A value of the wrong JSON type for the field's declared type. */
function wrongType(s: JsonSchema): unknown {
  switch (typeOf(s)) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return '12';
    case 'boolean':
      return 'true';
    case 'array':
      return { 0: 'x' };
    case 'object':
      return [1, 2];
    default:
      return true;
  }
}

/** The field's plausible string with `insert` in the middle, so a lax pattern still lets it through. */
function withInside(s: JsonSchema, known: Record<string, unknown>, insert: string, name?: string): string {
  const plain = example(s, known, name);
  const text = typeof plain === 'string' && plain.length > 0 ? plain : 'ab';
  const half = Math.ceil(text.length / 2);
  return `${text.slice(0, half)}${insert}${text.slice(half)}`;
}

// --- the catalogue --------------------------------------------------------------------------------

/**
 * One way to mutate the request. `family` is the mutation without its target (`NUL at <field>`):
 * the draw takes families in turn, so a body of twenty fields does not crowd out the path and the
 * query. `core` ones are always sent.
 */
interface Candidate {
  name: string;
  family: string;
  core: boolean;
  build: () => FuzzRequest;
}

export interface PlanOptions {
  /** Values for fields and parameters by name: what makes a request plausible enough to reach the handler. */
  known: Record<string, unknown>;
  /** How many requests, at most, per operation. */
  perOperation: number;
  /** The run's seed; each operation's draw is seeded from it and the operation. */
  seed: number;
}

/** How many fields (and query parameters) of one operation always get a NUL: the cause PostgreSQL refuses with a 500. */
const NUL_TARGETS = 3;

function shuffle<T>(items: T[], rng: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * The requests the fuzz sends to one operation: the core mutations that apply to it, then a
 * seeded draw from the rest, one family at a time, `perOperation` in all at most.
 */
export function planFor(op: OperationShape, options: PlanOptions): FuzzRequest[] {
  const { known } = options;
  const rng = prng(hash32(`${options.seed}|${op.method} ${op.path}`));

  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const enc = (v: unknown) => encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));
  const basePath: Record<string, string> = {};
  for (const p of pathParams) basePath[p.name] = enc(example(p.schema, known, p.name));
  const baseQuery: [string, string][] = queryParams
    .filter((p) => p.required)
    .map((p) => [encodeURIComponent(p.name), enc(example(p.schema, known, p.name))]);
  const queryText = (pairs: [string, string][]) => pairs.map(([k, v]) => `${k}=${v}`).join('&');

  const candidates: Candidate[] = [];
  /** A mutation of the plausible request: `change` gets the request to alter (path, query, body). */
  const add = (name: string, family: string, core: boolean, change: (r: FuzzRequest) => Partial<FuzzRequest>) =>
    candidates.push({
      name,
      family,
      core,
      build: () => {
        const plain: FuzzRequest = { mutation: name, family, path: { ...basePath }, query: queryText(baseQuery) };
        return { ...plain, ...change(plain) };
      },
    });
  const body = (contentType: string, text: string) => () => ({ body: { contentType, text } });

  // The path: what the router, the plane (which reads path parameters) and the store make of a
  // hostile segment. Raw segments: the encoding is the point.
  pathParams.forEach((p, i) => {
    const value = basePath[p.name] ?? 'x';
    const segment = (what: string, raw: string, core = false) =>
      add(`path ${p.name} ${what}`, `path ${what}`, core, (r) => ({ path: { ...r.path, [p.name]: raw } }));
    segment('= %00', '%00', true);
    segment('with %00 inside', `${value}%00x`);
    segment('= %ED%A0%80 (encoded surrogate)', '%ED%A0%80');
    segment('= %uD800', '%uD800');
    segment('over-long (101)', 'a'.repeat(101), i === 0);
    segment('over-long (5000)', 'a'.repeat(5000));
    segment('bad percent-encoding', '%E0%A4%A');
    for (const n of ['1e308', '-0', '99999999999999999999999999', '-1']) segment(`= ${n}`, n);
    segment('= %2e%2e', '%2e%2e');
    segment('with %2F', `${value}%2Fx`);
    segment('non-ASCII', '%C3%A9%E2%80%AE%F0%9F%92%A9');
  });

  // The query: every declared parameter, and one nobody declares.
  const queryWith = (name: string, raw: string | string[]) => (r: FuzzRequest) => {
    const rest = baseQuery.filter(([k]) => k !== encodeURIComponent(name));
    const values = (Array.isArray(raw) ? raw : [raw]).map((v): [string, string] => [encodeURIComponent(name), v]);
    return { ...r, query: queryText([...rest, ...values]) };
  };
  add('query unknown parameter', 'query unknown parameter', queryParams.length === 0, queryWith('fuzz_extra', '1'));
  add('query bad percent-encoding', 'query bad percent-encoding', false, queryWith('fuzz_extra', '%E0%A4%A'));
  queryParams.forEach((p, i) => {
    const value = enc(example(p.schema, known, p.name));
    const q = (what: string, raw: string | string[], core = false) =>
      add(`query ${p.name} ${what}`, `query ${what}`, core, queryWith(p.name, raw));
    q('with %00 inside', `${value}%00x`, i < NUL_TARGETS);
    q('= %00', '%00');
    q('= %ED%A0%80 (encoded surrogate)', '%ED%A0%80');
    q('= %uD800', '%uD800');
    q('= %ED%B3%BF (encoded low surrogate)', '%ED%B3%BF');
    q('sent twice', [value, value]);
    q('= 1e308', '1e308');
    q('= -0', '-0');
    q('= huge integer', '99999999999999999999999999');
    q('8 KB long', 'a'.repeat(8 * 1024));
    q('empty', '');
    q('non-ASCII', '%C3%A9%E2%80%AE');
  });

  if (op.body?.media === 'json') {
    const schema = op.body.schema;
    const base = example(schema, known);
    const whole = (what: string, text: string, core = false) =>
      add(`body ${what}`, `body ${what}`, core, body('application/json', text));
    whole('empty', '', true);
    whole('null', 'null');
    whole('an array', jsonText([base]), true);
    whole('a string', '"fuzz"');
    whole('1e308', '1e308');
    whole('truncated', jsonText(base).slice(0, -1));
    whole('unknown extra field', jsonText({ ...(base as object), fuzz_extra: 'x' }), true);
    whole('__proto__ key', `{"__proto__":{"polluted":true},${jsonText(base).slice(1)}`);
    whole('NUL in a key', jsonText({ ...(base as object), 'a\u0000b': 'x' }));
    whole('nested 2000 arrays', nestedArrays(2000).text);
    whole('2 MB', jsonText({ ...(base as object), fuzz_extra: MB2 }), true);
    add('body form-encoded', 'body form-encoded', false, body('application/x-www-form-urlencoded', 'a=b'));
    const leaves = leavesOf(schema);
    // A body left open (no declared fields) is aimed at through a field nobody declares.
    const targets: Leaf[] = leaves.length > 0 ? leaves : [{ at: ['fuzz_extra'], schema: {} }];
    const strings = targets.filter((l) => typeOf(l.schema) === 'string' || typeOf(l.schema) === undefined);
    const textual = strings.length > 0 ? strings : targets;
    const nulTargets = new Set(shuffle(textual, rng).slice(0, NUL_TARGETS));
    const [surrogateTarget] = shuffle(textual, rng);
    const [nestTarget] = shuffle(targets, rng);
    for (const leaf of targets) {
      const last = leaf.at[leaf.at.length - 1];
      const name = typeof last === 'string' ? last : undefined;
      const f = (what: string, value: unknown, core = false) =>
        add(
          `${what} at ${label(leaf.at)}`,
          `${what} at <field>`,
          core,
          body('application/json', jsonText(setAt(base, leaf.at, value))),
        );
      f('NUL', withInside(leaf.schema, known, '\u0000', name), nulTargets.has(leaf));
      f('lone surrogate \\ud800', withInside(leaf.schema, known, '\ud800', name), leaf === surrogateTarget);
      f('lone surrogate \\udfff', withInside(leaf.schema, known, '\udfff', name));
      f('wrong JSON type', wrongType(leaf.schema));
      f('null', null);
      f('1e308', new RawJson('1e308'));
      f('-0', new RawJson('-0'));
      f('huge integer', new RawJson('123456789012345678901234567890'));
      f('-1e308', new RawJson('-1e308'));
      f('an array', ['x']);
      f('an object', { fuzz: 'x' });
      f('empty string', '');
      f('nested 40 arrays', nestedArrays(40), leaf === nestTarget);
      f('nested 2000 objects', nestedObjects(2000), leaf === nestTarget);
      f('100 KB string', KB100);
      f('bytes that are not UTF-8', `a${BAD_UTF8}b`);
    }
  }

  if (op.body?.media === 'form') {
    const schema = op.body.schema;
    const base = example(schema, known) as Record<string, unknown>;
    const pairs = Object.entries(base).map(([k, v]): [string, string] => [encodeURIComponent(k), enc(v)]);
    const FORM = 'application/x-www-form-urlencoded';
    /** The plausible form with `extra` pairs, the field `replace` (if any) taken out first. */
    const formText = (extra: [string, string][], replace?: string) =>
      queryText([...pairs.filter(([k]) => k !== replace), ...extra]);
    const whole = (what: string, text: string, core = false) => add(`form ${what}`, `form ${what}`, core, body(FORM, text));
    whole('empty', '', true);
    whole('unknown extra field', formText([['fuzz_extra', 'x']]), true);
    whole('NUL in a name', formText([['a%00b', 'x']]));
    whole('bad percent-encoding', formText([['fuzz_extra', '%E0%A4%A']]));
    whole('2 MB', formText([['fuzz_extra', MB2]]), true);
    whole('bracket keys 2000 deep', formText([[`a${'%5Ba%5D'.repeat(2000)}`, 'x']]));
    add('form sent as JSON', 'form sent as JSON', false, body('application/json', jsonText(base)));
    const names = Object.keys(schema.properties ?? {});
    const targets = names.length > 0 ? names : ['fuzz_extra'];
    const nulTargets = new Set(shuffle(targets, rng).slice(0, NUL_TARGETS));
    for (const name of targets) {
      const value = enc(example(schema.properties?.[name] ?? {}, known, name));
      const key = encodeURIComponent(name);
      const f = (what: string, raw: string | string[], core = false) =>
        add(
          `form ${name} ${what}`,
          `form <field> ${what}`,
          core,
          body(
            FORM,
            formText(
              (Array.isArray(raw) ? raw : [raw]).map((r): [string, string] => [key, r]),
              key,
            ),
          ),
        );
      f('with %00 inside', `${value}%00x`, nulTargets.has(name));
      f('= %ED%A0%80 (encoded surrogate)', '%ED%A0%80');
      f('= %ED%B3%BF (encoded low surrogate)', '%ED%B3%BF');
      f('sent twice', [value, value]);
      f('100 KB', KB100);
      f('= 1e308', '1e308');
      f('= -0', '-0');
      f('= huge integer', '123456789012345678901234567890');
      f('nested-looking 2000 brackets', '%5B'.repeat(2000));
      f('bytes that are not UTF-8', BAD_UTF8);
    }
  }

  if (!op.body) {
    // An operation that takes no body is sent one anyway: what does the parser make of it?
    add('unexpected JSON body', 'unexpected JSON body', true, body('application/json', '{"fuzz_extra":"a\\u0000b"}'));
    add('unexpected nested body', 'unexpected nested body', false, body('application/json', nestedArrays(2000).text));
  }

  // The core first (they are why the fuzz exists), then the rest one family at a time, each
  // family's targets and the families' order drawn from the seed.
  const chosen = candidates.filter((c) => c.core);
  const families = new Map<string, Candidate[]>();
  for (const c of candidates.filter((c) => !c.core)) families.set(c.family, [...(families.get(c.family) ?? []), c]);
  const queues = shuffle([...families.values()], rng).map((list) => shuffle(list, rng));
  while (chosen.length < options.perOperation && queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      const next = queue.shift();
      if (next && chosen.length < options.perOperation) chosen.push(next);
    }
  }
  return chosen.slice(0, options.perOperation).map((c) => c.build());
}

/** The request line's target for a request: the template filled with its raw segments, and its query. */
export function targetOf(template: string, request: FuzzRequest): string {
  const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => request.path[name] ?? 'x');
  return request.query ? `${path}?${request.query}` : path;
}
