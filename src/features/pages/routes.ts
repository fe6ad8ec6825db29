import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { refusal } from '../../http/schemas/common.ts';
import type { ShippedDocs } from '../../ports/shipped-docs.ts';
import type { WebAssets } from '../../web/assets.ts';
import { sendPage, sendStaticFile } from '../../web/serve.ts';
import { demoRoutes } from './demo-routes.ts';
import type { DemoTryIt } from './demo-try-it.ts';
import { renderDocsPage } from './docs-page.ts';
import { DOCS_PATH, DocsReader } from './docs-reader.ts';
import { summarizeOpenApi } from './openapi-summary.ts';
import { type PartnerPageDeps, partnerPageRoutes } from './partner-routes.ts';
import { AUDIENCES } from './public-content.ts';
import {
  type PublicPageContext,
  renderAudience,
  renderCapabilities,
  renderDemo,
  renderDevelopers,
  renderHome,
  renderRegulations,
  renderStandards,
  servedPaths,
} from './public-pages.ts';
import { renderVerifyPage } from './verify-page.ts';

export interface PageDeps {
  siteName: string;
  assets: WebAssets;
  /** The project's documents as shipped, served under /developers/docs. */
  docs: ShippedDocs;
  /** The contract document of the mounted routes: the home page says what this deployment serves. */
  openApi: () => Record<string, unknown>;
  /** The wallet providers this deployment admits, which /verify lists (docs/wallet.md). */
  admittedWallets: () => Promise<{ name: string; homepage: string }[]>;
  /** The partner programme's pages and their two forms (docs/partner-pages.md). */
  partnerPages: Omit<PartnerPageDeps, 'siteName'>;
  /** The deployment's public origin, which the developers' recipes name. */
  origin: string;
  /** The demo page's live try-it, and whether this deployment has a demonstration tenant (docs/public-pages.md). */
  demo: DemoTryIt;
  demoEnabled: boolean;
}

const HTML = { 200: { description: 'HTML page.', contentType: 'text/html' } };
const FileName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' });
const DocName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' });

/** The server-rendered pages (one layout, docs/web.md) and the static files they link to. */
export function pageRoutes(deps: PageDeps): RouteGroup {
  // Rendered once: these pages depend only on the deployment, never on the request. /verify lists
  // the admitted wallets, so it is rendered per request.
  let served: ((path: string) => boolean) | undefined;
  const ctx: PublicPageContext = {
    siteName: deps.siteName,
    assets: deps.assets,
    origin: deps.origin,
    // Read from the contract document on first use: it is complete only once every group is mounted.
    served: (path) => {
      served ??= servedPaths(summarizeOpenApi(deps.openApi()).getPaths);
      return served(path);
    },
  };
  const reader = new DocsReader(deps.siteName, deps.docs);
  const once = <T>(render: () => T) => {
    let rendered: T | undefined;
    return () => {
      rendered ??= render();
      return rendered;
    };
  };
  const docs = renderDocsPage({ siteName: deps.siteName }, deps.assets);
  type Page = ReturnType<typeof renderDocsPage>;
  const page = (path: string, summary: string, render: () => Page | Promise<Page>) =>
    defineRoute({
      method: 'GET',
      path,
      auth: 'public',
      stability: 'unpromised',
      surface: 'page',
      summary,
      responses: HTML,
      handler: async (_request, reply) => sendPage(reply, await render()),
    });
  const staticFiles = (prefix: string) =>
    defineRoute({
      method: 'GET',
      path: `${prefix}/{file}`,
      auth: 'public',
      stability: 'unpromised',
      summary: 'A static file of the pages (stylesheet, icon, the API reference viewer), served from this deployment.',
      params: Type.Object({ file: FileName }),
      responses: {
        200: { description: 'The file; fingerprinted names are immutable, plain names revalidate by ETag.', contentType: '*/*' },
        404: refusal('unknown_asset'),
      },
      handler: async (request, reply) => {
        const file = deps.assets.files.get(`${prefix}/${request.params.file}`);
        if (!file) throw new ServiceError('unknown_asset', 'No static file of the pages has this name.');
        return sendStaticFile(request, reply, file);
      },
    });
  return {
    name: 'pages',
    routes: [
      page(
        '/',
        'What openrail is, who it is for, and where to start.',
        once(() => renderHome(ctx)),
      ),
      page(
        '/capabilities',
        'What the service does, each capability with its documentation.',
        once(() => renderCapabilities(ctx)),
      ),
      page(
        '/standards',
        'The standards and versions the service supports, with their evidence.',
        once(() => renderStandards(ctx)),
      ),
      page(
        '/regulations',
        'How the service supports data-protection duties and EU wallet interoperability.',
        once(() => renderRegulations(ctx)),
      ),
      ...AUDIENCES.map((a) =>
        page(
          a.path,
          `${a.title}: what the service does for this reader.`,
          once(() => renderAudience(ctx, a)),
        ),
      ),
      page(
        '/developers',
        'Quick start, API reference, curl recipes, the conformance kit, and what this deployment serves.',
        once(() => renderDevelopers(ctx, summarizeOpenApi(deps.openApi()), reader.docs.size)),
      ),
      page(
        '/demo',
        'A guided, live issue, present and revoke on the demonstration tenant.',
        once(() => renderDemo(ctx, deps.demoEnabled)),
      ),
      page(
        DOCS_PATH,
        'The project’s documents, as shipped with this deployment.',
        once(() => reader.index()),
      ),
      defineRoute({
        method: 'GET',
        path: `${DOCS_PATH}/{name}`,
        auth: 'public',
        stability: 'unpromised',
        surface: 'page',
        summary: 'One of the project’s documents, rendered as a page (docs/public-pages.md, "Documents").',
        params: Type.Object({ name: DocName }),
        responses: { ...HTML, 404: refusal('unknown_document') },
        handler: async (request, reply) => {
          const found = reader.page(request.params.name);
          if (!found) throw new ServiceError('unknown_document', 'No document of this deployment has this name.');
          return sendPage(reply, found);
        },
      }),
      ...demoRoutes(deps.demo),
      page('/docs', 'The interactive API reference over /openapi.json.', () => docs),
      page('/verify', 'The hosted verification page for relying parties.', async () =>
        renderVerifyPage(deps.siteName, await deps.admittedWallets()),
      ),
      ...partnerPageRoutes({ siteName: deps.siteName, ...deps.partnerPages }),
      staticFiles('/assets'),
      staticFiles('/docs/assets'),
    ],
  };
}
