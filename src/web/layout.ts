/**
 * The one layout of every page: document head, skip link, header with the main navigation, the
 * page's <main>, footer. A page is rendered together with the exact Content-Security-Policy that
 * lets it run and nothing more: scripts only by the hashes of the inline scripts it uses (plus
 * 'self' when it loads a script file of ours), styles only from our own stylesheets.
 */
import { type WebAssets, webAssets } from './assets.ts';
import { html, raw, type SafeHtml } from './html.ts';

export interface NavItem {
  href: string;
  label: string;
}

export const MAIN_NAV: readonly NavItem[] = [
  { href: '/', label: 'Home' },
  { href: '/capabilities', label: 'Capabilities' },
  { href: '/demo', label: 'Demo' },
  { href: '/verify', label: 'Verify' },
  { href: '/partners', label: 'Partners' },
  { href: '/developers', label: 'Developers' },
];

export interface PageSpec {
  /** The page's own title; the document title is "<title> · <siteName>". */
  title: string;
  /** The content of <main>. */
  main: SafeHtml;
  /** The href of the navigation item to mark as the current page. */
  current?: string;
  /** Display name of the deployment. Default: openrail. */
  siteName?: string;
  /** Static stylesheets to link before the site stylesheet, by their plain path (published in assets). */
  stylesheets?: readonly string[];
  /** Static script files to load, by their plain path (published in assets), before the inline scripts. */
  scriptFiles?: readonly string[];
  /** Page scripts (files in src/web/assets) to inline at the end of <body>, in order. */
  scripts?: readonly string[];
  /** Extra img-src sources, such as `data:` for a stylesheet with data: URL images. */
  imgSrc?: readonly string[];
  /** A class for <main>, for page-specific styles. */
  mainClass?: string;
}

export interface RenderedPage {
  html: string;
  /** The Content-Security-Policy header value to send with exactly this html. */
  csp: string;
}

export interface CspSources {
  scriptSrc: readonly string[];
  imgSrc: readonly string[];
}

/** The policy every page gets, with its own script and image sources. */
export function contentSecurityPolicy(sources: CspSources): string {
  const list = (values: readonly string[]) => (values.length > 0 ? [...new Set(values)].join(' ') : "'none'");
  return [
    "default-src 'none'",
    `script-src ${list(sources.scriptSrc)}`,
    "style-src 'self'",
    `img-src ${list(["'self'", ...sources.imgSrc])}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function renderPage(spec: PageSpec, assets: WebAssets = webAssets()): RenderedPage {
  const siteName = spec.siteName ?? 'openrail';
  const stylesheets = [...(spec.stylesheets ?? []), '/assets/site.css'].map((path) => assets.linked(path));
  const files = (spec.scriptFiles ?? []).map((path) => assets.linked(path));
  const inline = (spec.scripts ?? []).map((name) => assets.script(name));
  const favicon = assets.linked('/assets/favicon.svg');

  const nav = MAIN_NAV.map((item) =>
    item.href === spec.current
      ? html`<li><a href="${item.href}" aria-current="page">${item.label}</a></li>`
      : html`<li><a href="${item.href}">${item.label}</a></li>`,
  );

  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${spec.title} · ${siteName}</title>
<link rel="icon" href="${favicon.url}" type="image/svg+xml">
${stylesheets.map((s) => html`<link rel="stylesheet" href="${s.url}" integrity="${s.integrity}">\n`)}</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="site-header">
<div class="wrap">
<a class="site-name" href="/"><img src="${favicon.url}" alt="" width="28" height="28"><span>${siteName}</span></a>
<nav class="site-nav" aria-label="Main">
<ul>
${nav}
</ul>
</nav>
</div>
</header>
<main id="main" tabindex="-1" class="${['wrap', 'site-main', spec.mainClass].filter(Boolean).join(' ')}">
${spec.main}
</main>
<footer class="site-footer">
<div class="wrap">
<p>${siteName === 'openrail' ? 'openrail is' : `${siteName} runs openrail,`} an open-source credential trust service.</p>
</div>
</footer>
${files.map((f) => html`<script src="${f.url}" integrity="${f.integrity}"></script>\n`)}${inline.map((s) => html`<script>${raw(s.source)}</script>\n`)}</body>
</html>
`;

  return {
    html: page.toString(),
    csp: contentSecurityPolicy({
      scriptSrc: [...(files.length > 0 ? ["'self'"] : []), ...inline.map((s) => s.cspHash)],
      imgSrc: spec.imgSrc ?? [],
    }),
  };
}
