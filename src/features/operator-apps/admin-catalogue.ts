/**
 * The back office's pages, derived from the /api/admin operations of the contract
 * (docs/admin-app.md, "Pages"): every GET operation is a page at the same path under /admin;
 * each POST operation is a form on the page of its nearest GET ancestor, or a page of its own
 * when it has none; a GET whose last segment is a parameter and whose parent is no page gets an
 * "open" form at the parent. The navigation lists what the operator's roles admit, by group.
 */
import { admits, matchTemplate, type Operation } from './contract.ts';
import { humanize } from './schema-form.ts';

export const ADMIN_API = '/api/admin';
export const ADMIN_APP = '/admin';

/** The groups in the order of the navigation, with their labels. */
const SECTIONS: ReadonlyArray<[group: string, label: string]> = [
  ['admin-session', 'Today and support'],
  ['admin-approvals', 'Approvals'],
  ['admin-orgs', 'Organisations'],
  ['admin-people', 'People'],
  ['admin-credentials', 'Credentials and holders'],
  ['admin-audit', 'Audit'],
  ['admin-analytics', 'Analytics'],
  ['admin-integration', 'Integration'],
  ['admin-partners', 'Partners'],
  ['admin-compliance', 'Compliance'],
  ['admin-ops', 'Operations'],
];

/** Field names that name another page's subject by another name. */
const ALIASES: Readonly<Record<string, string>> = { tenant: 'slug' };

export interface Who {
  roles: readonly string[];
  tenant: string | null;
}

const rel = (path: string) => path.slice(ADMIN_API.length) || '/';
const parentOf = (template: string) => template.slice(0, template.lastIndexOf('/'));
const lastIsParam = (template: string) => /\/\{[^}]+\}$/.test(template);
const lastParam = (template: string) => /\/\{([^}]+)\}$/.exec(template)?.[1];

export interface Opener {
  /** The GET operation whose last segment is the parameter asked for. */
  op: Operation;
  param: string;
}

export class AdminCatalogue {
  readonly gets: Operation[];
  readonly posts: Operation[];
  /** Last-parameter name → the one GET template it opens, when exactly one does. */
  private readonly byParam = new Map<string, Operation>();

  constructor(operations: readonly Operation[]) {
    const admin = operations.filter((op) => op.path.startsWith(`${ADMIN_API}/`));
    this.gets = admin.filter((op) => op.method === 'GET');
    this.posts = admin.filter((op) => op.method === 'POST');
    const counts = new Map<string, Operation[]>();
    for (const op of this.gets) {
      const param = lastParam(op.path);
      if (param && param !== 'id') counts.set(param, [...(counts.get(param) ?? []), op]);
    }
    for (const [param, ops] of counts) if (ops.length === 1 && ops[0]) this.byParam.set(param, ops[0]);
  }

  /** The GET operation a template names exactly. */
  private get(template: string): Operation | undefined {
    return this.gets.find((op) => op.path === template);
  }

  /** The GET page a POST operation's form sits on: its nearest GET ancestor (or itself). */
  home(post: Operation): Operation | undefined {
    for (let t = post.path; t.length > ADMIN_API.length; t = parentOf(t)) {
      const found = this.get(t);
      if (found) return found;
    }
    return undefined;
  }

  /** The forms shown on a GET page. */
  formsOn(page: Operation): Operation[] {
    return this.posts.filter((post) => this.home(post) === page);
  }

  /** GET operations opened by a parameter from the page at `path` (whose template has no GET of its own). */
  openersAt(path: string): Opener[] {
    return this.gets.flatMap((op) => {
      const param = lastParam(op.path);
      if (!param || this.get(parentOf(op.path)) || !matchTemplate(parentOf(op.path), path)) return [];
      return [{ op, param }];
    });
  }

  /** A POST operation without any GET ancestor: it is a page of its own, at its path. */
  formOnly(post: Operation): boolean {
    return this.home(post) === undefined;
  }

  /** Where a value of field `key` links to (another page that shows it), if the operator may open that page. */
  linkFor(key: string, value: string, who: Who): string | undefined {
    const op = this.byParam.get(ALIASES[key] ?? key);
    if (!op || !admits(op, who)) return undefined;
    return `${ADMIN_APP}${rel(op.path).replace(/\{[^}]+\}$/, encodeURIComponent(value))}`;
  }

  /** The detail page of a list page's rows: `<list>/{x}`, linked by the row's `x` or `id`. */
  detailOf(list: Operation): { op: Operation; param: string } | undefined {
    const op = this.gets.find((g) => lastIsParam(g.path) && parentOf(g.path) === list.path);
    const param = op && lastParam(op.path);
    return op && param ? { op, param } : undefined;
  }

  /** The navigation an operator sees: each group's pages its roles admit, in order. */
  nav(who: Who): Array<{ label: string; items: Array<{ href: string; label: string }> }> {
    return SECTIONS.map(([group, label]) => {
      const items: Array<{ href: string; label: string }> = [];
      const seen = new Set<string>();
      const add = (template: string, op: Operation) => {
        const href = `${ADMIN_APP}${rel(template)}`;
        if (seen.has(href) || !admits(op, who)) return;
        seen.add(href);
        items.push({ href, label: pageLabel(template) });
      };
      for (const op of this.gets.filter((g) => g.group === group)) {
        if (op.pathParams.length === 0) add(op.path, op);
        else if (lastIsParam(op.path) && !this.get(parentOf(op.path)) && !parentOf(op.path).includes('{'))
          add(parentOf(op.path), op);
      }
      for (const op of this.posts.filter((p) => p.group === group && this.formOnly(p) && p.pathParams.length === 0))
        add(op.path, op);
      return { label, items };
    }).filter((section) => section.items.length > 0);
  }
}

/** A page's name from its path: the literal segments after the first, or the first alone. */
export function pageLabel(template: string): string {
  const words = rel(template)
    .split('/')
    .filter((s) => s && !s.startsWith('{'));
  const shown = words.length > 1 ? words.slice(1) : words;
  return shown.map(humanize).join(' – ') || 'Home';
}

export const adminHref = (apiPath: string) => `${ADMIN_APP}${rel(apiPath)}`;
export const apiPathOf = (appPath: string) => `${ADMIN_API}${appPath.slice(ADMIN_APP.length)}`;
