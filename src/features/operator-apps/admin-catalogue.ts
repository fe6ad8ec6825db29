/**
 * The back office's pages, derived from the /api/admin operations of the contract
 * (docs/admin-app.md, "Pages"): every GET operation is a page at the same path under /admin;
 * each POST operation is a form on the page of its nearest GET ancestor, or a page of its own
 * when it has none; a GET whose last segment is a parameter and whose parent is no page gets an
 * "open" form at the parent. The navigation lists what the operator's roles admit, by section,
 * each subject once (admin-nav.ts).
 */
import { LABELS, MERGED, SECTION_OF, SECTIONS, START_PAGE } from './admin-nav.ts';
import { admits, matchTemplate, type Operation } from './contract.ts';
import { humanize } from './schema-form.ts';

export const ADMIN_API = '/api/admin';
export const ADMIN_APP = '/admin';

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

  /** The pages that link from the navigation, by path (relative), each with the operation that admits it. */
  private linkable(): Map<string, Operation> {
    const pages = new Map<string, Operation>();
    const add = (template: string, op: Operation) => {
      const path = rel(template);
      // A list and the look-up under it share an address: the first operation found names it.
      if (!pages.has(path)) pages.set(path, op);
    };
    for (const op of this.gets) {
      if (op.pathParams.length === 0) add(op.path, op);
      else if (lastIsParam(op.path) && !this.get(parentOf(op.path)) && !parentOf(op.path).includes('{'))
        add(parentOf(op.path), op);
    }
    for (const op of this.posts) if (this.formOnly(op) && op.pathParams.length === 0) add(op.path, op);
    return pages;
  }

  /**
   * The navigation an operator sees: the pages its roles admit, by section, each subject once. A
   * page MERGED into another the operator may open is no link of its own; that page's link carries
   * its name (`terms`) for the filter. The start page stands in for "Today".
   */
  nav(who: Who): Array<{ label: string; items: Array<{ href: string; label: string; terms?: string }> }> {
    // The start page comes first in its section.
    const admitted = [...this.linkable()]
      .filter(([, op]) => admits(op, who))
      .sort(([a], [b]) => Number(b === START_PAGE) - Number(a === START_PAGE));
    const open = new Set(admitted.map(([path]) => path));
    const terms = new Map<string, string[]>();
    for (const [path] of admitted) {
      const into = MERGED[path];
      if (into !== undefined && open.has(into)) terms.set(into, [...(terms.get(into) ?? []), pageLabel(`${ADMIN_API}${path}`)]);
    }
    const sectionOf = (path: string, op: Operation) =>
      SECTION_OF[path] ?? SECTIONS.find((s) => s.groups.includes(op.group))?.label ?? 'Other';
    const shown = admitted.filter(([path]) => !(MERGED[path] !== undefined && open.has(MERGED[path] as string)));
    return [...SECTIONS.map((s) => s.label), 'Other']
      .map((label) => ({
        label,
        items: shown
          .filter(([path, op]) => sectionOf(path, op) === label)
          .map(([path]) => ({
            href: path === START_PAGE ? ADMIN_APP : `${ADMIN_APP}${path}`,
            label: pageLabel(`${ADMIN_API}${path}`),
            ...(terms.has(path) ? { terms: terms.get(path)?.join(', ') } : {}),
          })),
      }))
      .filter((section) => section.items.length > 0);
  }

  /** The pages MERGED into the page at `template` (an /api/admin template), as their operations. */
  mergedInto(template: string): { lookups: Operation[]; openers: Opener[]; forms: Operation[] } {
    const paths = Object.entries(MERGED)
      .filter(([, into]) => into === rel(template))
      .map(([path]) => `${ADMIN_API}${path}`);
    return {
      lookups: paths.flatMap((p) => this.gets.filter((g) => g.path === p)),
      openers: paths.flatMap((p) => this.openersAt(p)),
      forms: paths.flatMap((p) => this.posts.filter((post) => post.path === p && this.formOnly(post))),
    };
  }

  /** The page a form-only operation is shown on, when it is MERGED into one (an /api/admin template). */
  shownOn(post: Operation): string | undefined {
    const into = MERGED[rel(post.path)];
    return into === undefined || !this.get(`${ADMIN_API}${into}`) ? undefined : `${ADMIN_API}${into}`;
  }
}

/** A page's name from its path: the literal segments after the first, or the first alone. */
export function pageLabel(template: string): string {
  const named = LABELS[rel(template)];
  if (named) return named;
  const words = rel(template)
    .split('/')
    .filter((s) => s && !s.startsWith('{'));
  const shown = words.length > 1 ? words.slice(1) : words;
  return shown.map(humanize).join(' – ') || 'Home';
}

export const adminHref = (apiPath: string) => `${ADMIN_APP}${rel(apiPath)}`;
export const apiPathOf = (appPath: string) => `${ADMIN_API}${appPath.slice(ADMIN_APP.length)}`;
