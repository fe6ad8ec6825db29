/**
 * What a deployment serves, read from its OpenAPI document (the one GET /openapi.json answers):
 * the route groups (each operation's first tag) with their operation counts and a few example
 * paths, and the set of GET paths, so a page links only to documents that are really served.
 * The document is treated as data from elsewhere: anything of an unexpected shape is skipped.
 */

export interface OperationGroup {
  name: string;
  /** The tag's description, when the document's `tags` gives one. */
  description?: string;
  operations: number;
  /** Up to EXAMPLES of "METHOD /path", in document order, one per path. */
  examples: string[];
}

export interface ApiSummary {
  title: string;
  version: string;
  groups: OperationGroup[];
  /** Every path with a GET operation. */
  getPaths: string[];
}

export const EXAMPLES = 3;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown, fallback: string) => (typeof value === 'string' && value.length > 0 ? value : fallback);

export function summarizeOpenApi(doc: unknown): ApiSummary {
  const root = isRecord(doc) ? doc : {};
  const info = isRecord(root.info) ? root.info : {};
  const descriptions = new Map<string, string>();
  for (const tag of Array.isArray(root.tags) ? root.tags : []) {
    if (isRecord(tag) && typeof tag.name === 'string' && typeof tag.description === 'string') {
      descriptions.set(tag.name, tag.description);
    }
  }

  const groups = new Map<string, OperationGroup>();
  const getPaths: string[] = [];
  for (const [path, item] of Object.entries(isRecord(root.paths) ? root.paths : {})) {
    if (!isRecord(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isRecord(operation)) continue;
      if (method === 'get') getPaths.push(path);
      const tags = Array.isArray(operation.tags) ? operation.tags : [];
      const name = text(tags[0], 'other');
      let group = groups.get(name);
      if (!group) {
        const description = descriptions.get(name);
        group = { name, ...(description ? { description } : {}), operations: 0, examples: [] };
        groups.set(name, group);
      }
      group.operations += 1;
      if (group.examples.length < EXAMPLES && !group.examples.some((e) => e.endsWith(` ${path}`))) {
        group.examples.push(`${method.toUpperCase()} ${path}`);
      }
    }
  }

  return {
    title: text(info.title, 'openrail'),
    version: text(info.version, ''),
    groups: [...groups.values()],
    getPaths,
  };
}
