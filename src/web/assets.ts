/**
 * The files pages use, read once when the service starts (the vendor files' bytes by their first request).
 *
 * - `src/web/assets/*.js` are page scripts. A page inlines one in a <script> element and names
 *   its hash in `script-src`, so no 'unsafe-inline' and no nonces are needed. The hash is computed
 *   here from the file's bytes, which are exactly the text the browser hashes: a file the HTML
 *   parser would change (a CR it would normalise, a `</script` or `<!--` that would end or bend
 *   the element, bytes that are not UTF-8) is refused at start rather than silently mismatching.
 * - `src/web/assets/*.css` and `*.svg` are served as static files under /assets/ (`style-src 'self'`).
 * - A few files of npm packages (an explicit allow-list, VENDOR_FILES) are served the same way
 *   from node_modules, never from a CDN.
 * - A page script meant for other sites to embed (EMBEDDABLE_SCRIPTS: the Digital Credentials API
 *   helper, docs/dc-api.md) is also served as a static file.
 *
 * Every static file is served at two addresses: one with its content hash in the name
 * (`/assets/site.<hash>.css`), cached for a year as immutable, which is what pages link to; and
 * its plain name (`/assets/site.css`), revalidated on each use by its ETag.
 */
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import type { WebAssetFiles } from '../ports/web-asset-files.ts';

/** What a route handler needs to answer GET <path>. */
export interface StaticAsset {
  contentType: string;
  /** Its bytes (a vendor file's are read by the first request that needs them, then kept). */
  readonly body: Buffer;
  cacheControl: string;
  /** Whether other sites may load it (Cross-Origin-Resource-Policy: cross-origin): the embeddable scripts only. */
  crossOrigin?: boolean;
  /** A strong validator of the body (quoted, as sent in the ETag header). */
  etag: string;
}

/** A page script to inline, and the source expression that allows exactly it. */
export interface InlineScript {
  name: string;
  source: string;
  /** `'sha256-<base64>'`, quotes included, as written in script-src. */
  cspHash: string;
}

/** A static file a page links to: its fingerprinted URL and its SRI value. */
export interface LinkedAsset {
  url: string;
  /** `sha384-<base64>` for the integrity attribute. */
  integrity: string;
}

export interface WebAssets {
  /** The page script `name` (a file in the assets folder); throws if there is none. */
  script(name: string): InlineScript;
  /** The static file published at `plainPath` (such as /assets/site.css); throws if there is none. */
  linked(plainPath: string): LinkedAsset;
  /** Every static file by path: the route handlers' data. */
  files: ReadonlyMap<string, StaticAsset>;
}

/** Files of npm packages served to the browser, by the path they are served at. Nothing else of node_modules is. */
export const VENDOR_FILES: ReadonlyArray<{ path: string; packageName: string; file: string }> = [
  { path: '/docs/assets/swagger-ui-bundle.js', packageName: 'swagger-ui-dist', file: 'swagger-ui-bundle.js' },
  { path: '/docs/assets/swagger-ui.css', packageName: 'swagger-ui-dist', file: 'swagger-ui.css' },
];

/** Page scripts relying parties may load from their own pages, served under /assets/ as well as inlined here. */
export const EMBEDDABLE_SCRIPTS: readonly string[] = ['dc-api.js'];

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'public, no-cache';

/** The CSP hash source of a script's text: `'sha256-<base64 of SHA-256 of its UTF-8 bytes>'`. */
export function cspHashOf(bytes: Buffer | string): string {
  return `'sha256-${createHash('sha256').update(bytes).digest('base64')}'`;
}

/** Checks that `bytes` survive as the text of an inline <script> unchanged, and returns that text. */
export function inlineScriptText(name: string, bytes: Buffer): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`web asset ${name}: not UTF-8`);
  }
  if (text.includes('\r'))
    throw new Error(`web asset ${name}: has CR characters, which HTML parsing turns into LF (its hash would not match)`);
  if (text.includes('\0')) throw new Error(`web asset ${name}: has a NUL character`);
  if (/<\/script|<!--/i.test(text))
    throw new Error(`web asset ${name}: contains "</script" or "<!--", which would end or change the inline element`);
  return text;
}

/**
 * Publishes a static file at its two addresses. `read` gives its bytes; with `later`, they are
 * read at the start only to be fingerprinted, and read again by the first request that needs them
 * (the API reference's vendor files, about 1.9 MB most processes never serve: docs/scaling.md,
 * "Memory"). Bytes that no longer match the fingerprint then (the package replaced under a running
 * process) are refused with an error rather than served under a hash and an integrity they fail.
 */
function publish(
  files: Map<string, StaticAsset>,
  linked: Map<string, LinkedAsset>,
  plainPath: string,
  read: () => Buffer,
  options: { crossOrigin?: boolean; later?: boolean } = {},
): void {
  const ext = extname(plainPath);
  const contentType = CONTENT_TYPES[ext];
  if (!contentType) throw new Error(`web asset ${plainPath}: no content type for "${ext}"`);
  const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest();
  const first = read();
  const sha256 = sha256Of(first);
  const fingerprint = sha256.toString('hex').slice(0, 16);
  const etag = `"${sha256.toString('base64url')}"`;
  const hashedPath = `${plainPath.slice(0, -ext.length)}.${fingerprint}${ext}`;
  linked.set(plainPath, { url: hashedPath, integrity: `sha384-${createHash('sha384').update(first).digest('base64')}` });
  let kept = options.later ? undefined : first;
  const body = () => {
    if (kept) return kept;
    const again = read();
    if (!sha256Of(again).equals(sha256)) {
      throw new Error(`web asset ${plainPath}: changed on disk since the service started; restart it to serve the new file`);
    }
    kept = again;
    return kept;
  };
  const shared = options.crossOrigin ? { crossOrigin: true } : {};
  for (const [path, cacheControl] of [
    [plainPath, REVALIDATE],
    [hashedPath, IMMUTABLE],
  ] as const) {
    files.set(path, {
      contentType,
      cacheControl,
      etag,
      ...shared,
      get body() {
        return body();
      },
    });
  }
}

/** Reads the assets folder and the vendor files. Throws, naming the file, on anything it would not serve as is. */
export function loadWebAssets(source: WebAssetFiles): WebAssets {
  const scripts = new Map<string, InlineScript>();
  const files = new Map<string, StaticAsset>();
  const linked = new Map<string, LinkedAsset>();

  for (const { name, bytes } of source.assets()) {
    if (name.endsWith('.js')) {
      scripts.set(name, { name, source: inlineScriptText(name, bytes), cspHash: cspHashOf(bytes) });
      if (EMBEDDABLE_SCRIPTS.includes(name)) publish(files, linked, `/assets/${name}`, () => bytes, { crossOrigin: true });
    } else {
      publish(files, linked, `/assets/${name}`, () => bytes);
    }
  }

  for (const vendor of VENDOR_FILES) {
    publish(files, linked, vendor.path, () => source.packageFile(vendor.packageName, vendor.file), { later: true });
  }

  return {
    script(name) {
      const script = scripts.get(name);
      if (!script) throw new Error(`no page script ${name} in ${source.folder}`);
      return script;
    },
    linked(plainPath) {
      const asset = linked.get(plainPath);
      if (!asset) throw new Error(`no static asset published at ${plainPath}`);
      return asset;
    },
    files,
  };
}

let shared: WebAssets | undefined;

/**
 * Makes `assets` those of this installation, what pages link and inline: the composition root
 * (app/start.ts) reads them once, when the service starts, from the files as installed.
 */
export function installWebAssets(assets: WebAssets): void {
  shared = assets;
}

/** The assets of this installation (installWebAssets); throws before they are installed. */
export function webAssets(): WebAssets {
  if (!shared) throw new Error('the web assets are read when the service starts (installWebAssets in app/start.ts)');
  return shared;
}

/** path -> {contentType, body, cacheControl, etag} for every static file: what GET routes serve. */
export function webStaticFiles(assets: WebAssets = webAssets()): ReadonlyMap<string, StaticAsset> {
  return assets.files;
}
