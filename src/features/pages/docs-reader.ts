/**
 * GET /developers/docs/{name}: the project's own documents (docs/*.md and docs/backoffice/*.md, as
 * shipped with this deployment) rendered as pages of the site, so that the public pages can link a
 * capability to its documentation on any deployment (docs/public-pages.md). markdown-it renders
 * them with raw HTML off; links between documents are rewritten to their served names, and a link
 * to a file that is not served (source code, decision records) keeps its text without a link.
 */
import { basename } from 'node:path';
import type MarkdownIt from 'markdown-it';
import type { RenderRule } from 'markdown-it/lib/renderer.mjs';
import { whenFirstUsed } from '../../core/lazy-package.ts';
import type { ShippedDocs } from '../../ports/shipped-docs.ts';
import { html, raw } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';

export const DOCS_PATH = '/developers/docs';
const markdownIt = whenFirstUsed<typeof MarkdownIt>('markdown-it');
/** The folders served, and the prefix of their documents' names (docs/backoffice/views.md is `backoffice-views`). */
const FOLDERS: ReadonlyArray<{ dir: string; prefix: string }> = [
  { dir: '', prefix: '' },
  { dir: 'backoffice', prefix: 'backoffice-' },
];

export interface ServedDoc {
  name: string;
  /** The document's first heading. */
  title: string;
  /** Its path under docs/, as links inside the documents name it. */
  file: string;
}

export class DocsReader {
  readonly docs: ReadonlyMap<string, ServedDoc>;
  private readonly byFile = new Map<string, string>();
  private readonly rendered = new Map<string, RenderedPage>();
  /** The renderer, made with the first document rendered (markdown-it loads then). */
  private markdown: MarkdownIt | undefined;
  /** Tables of the document being rendered, to name each scrolling box. */
  private tables = 0;

  constructor(
    private readonly siteName: string,
    private readonly files: ShippedDocs,
  ) {
    const docs = new Map<string, ServedDoc>();
    for (const { dir, prefix } of FOLDERS) {
      for (const fileName of files.list(dir).sort()) {
        const file = dir ? `${dir}/${fileName}` : fileName;
        const source = files.read(file);
        if (source === undefined) continue;
        const name = `${prefix}${basename(fileName, '.md')}`;
        // A copy, not V8's slice of the source, which would keep every document's text alive.
        const heading = /^#\s+(.+)$/m.exec(source)?.[1]?.replace(/`/g, '');
        const title = heading === undefined ? name : Buffer.from(heading).toString();
        docs.set(name, { name, title, file });
        this.byFile.set(file, name);
      }
    }
    this.docs = docs;
  }

  /** The page of a served document, or undefined for any other name. */
  page(name: string): RenderedPage | undefined {
    const served = this.docs.get(name);
    if (!served) return undefined;
    let page = this.rendered.get(name);
    if (!page) {
      const source = this.files.read(served.file);
      if (source === undefined) return undefined; // removed from disk since the start: as unknown as any other name
      this.tables = 0;
      const body = this.renderer().render(source, { file: served.file });
      const main = html`<nav class="breadcrumb" aria-label="Breadcrumb"><ol><li><a href="/developers">Developers</a></li><li><a href="${DOCS_PATH}">Documents</a></li></ol></nav>
<article class="doc">${raw(body)}</article>`;
      page = renderPage({ title: served.title, main, siteName: this.siteName, current: '/developers', mainClass: 'doc-page' });
      this.rendered.set(name, page);
    }
    return page;
  }

  /** The served name a relative link from `from` (a path under docs/) leads to, with its fragment. */
  private target(from: string, href: string): string | undefined {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('/')) return href;
    const [path = '', fragment] = href.split('#', 2);
    const resolved = new URL(path, `file:///docs/${from}`).pathname.replace(/^\/docs\//, '');
    const name = this.byFile.get(resolved);
    if (!name) return undefined;
    return `${DOCS_PATH}/${name}${fragment ? `#${fragment}` : ''}`;
  }

  private renderer(): MarkdownIt {
    if (this.markdown) return this.markdown;
    const md = new (markdownIt())({ html: false, linkify: false, typographer: false });
    this.markdown = md;
    // Links: rewritten to served names, or dropped (text kept) when they lead to a file not served.
    md.core.ruler.push('openrail-links', (state) => {
      const from = (state.env as { file: string }).file;
      for (const block of state.tokens) {
        const children = block.children ?? [];
        let dropping = false;
        for (const token of children) {
          if (token.type === 'link_open') {
            const href = this.target(from, token.attrGet('href') ?? '');
            dropping = href === undefined;
            if (href === undefined) token.meta = { drop: true };
            else token.attrSet('href', href);
          } else if (token.type === 'link_close' && dropping) {
            token.meta = { drop: true };
            dropping = false;
          }
        }
      }
    });
    const render: RenderRule = (tokens, i, options, _env, self) =>
      tokens[i]?.meta?.drop ? '' : self.renderToken(tokens, i, options);
    md.renderer.rules.link_open = render;
    md.renderer.rules.link_close = render;
    // Wide tables and code scroll inside their own box, which a keyboard can reach, never the page.
    md.renderer.rules.table_open = () => {
      this.tables += 1;
      return `<div class="scroll-box" tabindex="0" role="region" aria-label="Table ${this.tables}">\n<table>\n`;
    };
    md.renderer.rules.table_close = () => '</table>\n</div>\n';
    const fence = md.renderer.rules.fence;
    md.renderer.rules.fence = (...args) => (fence ? fence(...args) : '').replace(/^<pre>/, '<pre tabindex="0">');
    const codeBlock = md.renderer.rules.code_block;
    md.renderer.rules.code_block = (...args) => (codeBlock ? codeBlock(...args) : '').replace(/^<pre>/, '<pre tabindex="0">');
    return md;
  }

  /** The index of the served documents, in the order of their names. */
  index(): RenderedPage {
    const main = html`<nav class="breadcrumb" aria-label="Breadcrumb"><ol><li><a href="/developers">Developers</a></li></ol></nav>
<h1>Documents</h1>
<p class="lead">The project's documentation, as shipped with this deployment: each capability, its contract and its refusals.</p>
<ul class="doc-index">${[...this.docs.values()].map((d) => html`<li><a href="${DOCS_PATH}/${d.name}">${d.title}</a></li>`)}</ul>`;
    return renderPage({ title: 'Documents', main, siteName: this.siteName, current: '/developers' });
  }
}
