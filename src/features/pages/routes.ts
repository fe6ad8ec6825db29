import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { errorResponse } from '../../http/schemas/common.ts';
import type { WebAssets } from '../../web/assets.ts';
import { sendPage, sendStaticFile } from '../../web/serve.ts';
import { renderDocsPage } from './docs-page.ts';
import { renderHomePage } from './home-page.ts';
import { summarizeOpenApi } from './openapi-summary.ts';
import { type PartnerPageDeps, partnerPageRoutes } from './partner-routes.ts';
import { renderVerifyPage } from './verify-page.ts';

export interface PageDeps {
  siteName: string;
  assets: WebAssets;
  /** The contract document of the mounted routes: the home page says what this deployment serves. */
  openApi: () => Record<string, unknown>;
  /** The wallet providers this deployment admits, which /verify lists (docs/wallet.md). */
  admittedWallets: () => Promise<{ name: string; homepage: string }[]>;
  /** The partner programme's pages and their two forms (docs/partner-pages.md). */
  partnerPages: Omit<PartnerPageDeps, 'siteName'>;
}

const HTML = { 200: { description: 'HTML page.', contentType: 'text/html' } };
const FileName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' });

/** The server-rendered pages (one layout, docs/web.md) and the static files they link to. */
export function pageRoutes(deps: PageDeps): RouteGroup {
  // Rendered once: these pages depend only on the deployment, never on the request. /verify lists
  // the admitted wallets, so it is rendered per request.
  let home: ReturnType<typeof renderHomePage> | undefined;
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
        404: errorResponse('unknown_asset'),
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
      page('/', 'What openrail is and what this deployment serves.', () => {
        home ??= renderHomePage({ summary: summarizeOpenApi(deps.openApi()), siteName: deps.siteName }, deps.assets);
        return home;
      }),
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
