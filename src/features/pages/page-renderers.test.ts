import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { installedWebAssets } from '../../../test/helpers/web-assets.ts';
import { MAIN_NAV } from '../../web/layout.ts';
import { renderDocsPage } from './docs-page.ts';
import { summarizeOpenApi } from './openapi-summary.ts';
import { AUDIENCES } from './public-content.ts';
import {
  PUBLIC_DOCUMENTS,
  renderAudience,
  renderCapabilities,
  renderDemo,
  renderDevelopers,
  renderHome,
  renderRegulations,
  renderStandards,
} from './public-pages.ts';

const assets = installedWebAssets();

/** Every inline script's text in a page. */
const inlineScripts = (page: string) => [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');

const sampleDoc = {
  openapi: '3.1.0',
  info: { title: 'openrail', version: '0.1.0' },
  tags: [{ name: 'trust', description: 'DIDs & friends' }],
  paths: {
    '/.well-known/did.json': { get: { tags: ['trust'], responses: {} } },
    '/t/{tenant}/did.json': { get: { tags: ['trust'], responses: {} } },
    '/.well-known/security.txt': { get: { tags: ['trust'], responses: {} } },
    '/build': { get: { tags: ['trust'], responses: {} } },
    '/api/tenants': { post: { tags: ['tenants'], responses: {} } },
    '/v1/tenants': { post: { tags: ['tenants'], responses: {} } },
    '/api/things': { get: { tags: ['things'], responses: {} }, post: { tags: ['things'], responses: {} } },
    '/untagged': { get: { responses: {} } },
  },
};

const ctx = { siteName: 'openrail', assets, origin: 'https://rail.example.org' };
const NO_SCRIPT_CSP =
  "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

describe('the public pages', () => {
  const pages = {
    '/': renderHome(ctx),
    '/capabilities': renderCapabilities(ctx),
    '/standards': renderStandards(ctx),
    '/regulations': renderRegulations(ctx),
    '/demo (off)': renderDemo(ctx, false),
    ...Object.fromEntries(AUDIENCES.map((a) => [a.path, renderAudience(ctx, a)])),
  };

  test('run no script: their CSP allows none, and they carry no inline style', () => {
    for (const [path, page] of Object.entries(pages)) {
      assert.equal(page.csp, NO_SCRIPT_CSP, path);
      assert.doesNotMatch(page.html, /<script|\sstyle=|<style/i, path);
    }
  });

  test('each reader’s page says what it solves, what stays private and how to start', () => {
    for (const a of AUDIENCES) {
      const html = renderAudience(ctx, a).html;
      for (const heading of ['What it solves', 'What stays private', 'How to start'])
        assert.ok(html.includes(`>${heading}</h2>`), `${a.path}: ${heading}`);
      assert.ok(
        html.includes('aria-current="page"') === MAIN_NAV.some((n) => n.href === a.path),
        `${a.path}: marked in the navigation only when it is there`,
      );
    }
  });

  test('the demo page runs its wallet and demo.js by their hashes, and only when the deployment has a demonstration tenant', () => {
    const on = renderDemo(ctx, true);
    const scripts = ['dc-api.js', 'demo-wire.js', 'demo-wallet.js', 'demo.js'].map((name) => assets.script(name));
    for (const script of scripts) assert.ok(on.csp.includes(script.cspHash), script.name);
    assert.deepEqual(
      inlineScripts(on.html),
      scripts.map((s) => s.source),
    );
    assert.doesNotMatch(renderDemo(ctx, false).html, /id="issue"/);
  });

  test('the command-line wallet the demo page names gets --allow-http exactly when the deployment is plain http', () => {
    const command = (origin: string) =>
      /<code>(npx openrail wallet collect [^<]*)<\/code>/.exec(renderDemo({ ...ctx, origin }, true).html)?.[1];
    assert.equal(command('http://localhost:3000'), "npx openrail wallet collect '&lt;the offer link&gt;' --allow-http");
    assert.equal(command('https://rail.example.org'), "npx openrail wallet collect '&lt;the offer link&gt;'");
  });
});

describe('the developers page', () => {
  const summary = summarizeOpenApi(sampleDoc);
  const page = renderDevelopers(ctx, summary, 3);

  test('its CSP allows no script at all', () => {
    assert.equal(page.csp, NO_SCRIPT_CSP);
    assert.doesNotMatch(page.html, /<script|\sstyle=|<style/i);
  });

  test('links only the public documents the summary says are served', () => {
    const list = page.html.slice(page.html.indexOf('<ul class="documents">'));
    const linked = PUBLIC_DOCUMENTS.filter((d) => list.includes(`<a href="${d.path}">`)).map((d) => d.path);
    assert.deepEqual(linked, ['/.well-known/did.json', '/.well-known/security.txt', '/build']);
  });

  test('its recipes name this deployment’s origin', () => {
    assert.ok(page.html.includes('curl -s https://rail.example.org/verify/catalog'));
    assert.ok(page.html.includes('<a class="button" href="/developers/docs">Documents (3)</a>'));
  });

  test('counts operations per group, with examples', () => {
    assert.match(page.html, /<caption>9 operations in 4 groups/);
    assert.match(
      page.html,
      /<th scope="row">trust<br><span class="muted">DIDs &amp; friends<\/span><\/th>\n<td class="count">4<\/td>/,
    );
    assert.match(page.html, /<th scope="row">other<\/th>\n<td class="count">1<\/td>/);
  });

  test('everything read from the document is escaped', () => {
    const hostile = summarizeOpenApi({
      info: { title: '<script>alert(1)</script>', version: '"><img src=x onerror=alert(1)>' },
      tags: [{ name: 'x', description: '<b onclick="alert(1)">hi</b>' }],
      paths: { '/a"><svg onload=alert(1)>': { get: { tags: ['x'] } } },
    });
    const out = renderDevelopers(ctx, hostile, 0).html;
    assert.doesNotMatch(out, /<script>alert|<img src=x|<b onclick|<svg onload/);
    assert.ok(out.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  });
});

describe('the docs page', () => {
  const page = renderDocsPage({}, assets);

  test('its CSP: Swagger UI from self, docs.js by hash, data: images; nothing unsafe', () => {
    const hash = `'sha256-${createHash('sha256').update(assets.script('docs.js').source, 'utf8').digest('base64')}'`;
    assert.equal(
      page.csp,
      `default-src 'none'; script-src 'self' ${hash}; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
  });

  test('every inline script is allowed by a hash in the CSP, byte for byte', () => {
    const scripts = inlineScripts(page.html);
    assert.equal(scripts.length, 1);
    for (const text of scripts) {
      assert.ok(page.csp.includes(`'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`));
    }
  });

  test('loads the Swagger UI bundle with SRI before the init script, and points it at the document', () => {
    const bundle = assets.linked('/docs/assets/swagger-ui-bundle.js');
    const css = assets.linked('/docs/assets/swagger-ui.css');
    assert.ok(page.html.includes(`<script src="${bundle.url}" integrity="${bundle.integrity}"></script>\n<script>`));
    assert.ok(
      page.html.indexOf(css.url) < page.html.indexOf(assets.linked('/assets/site.css').url),
      'site.css comes last and wins',
    );
    assert.match(page.html, /<div id="api-reference" class="api-reference" data-spec-url="\/openapi.json"><\/div>/);
    assert.match(page.html, /<noscript>/);
    assert.doesNotMatch(page.html, /\sstyle=|<style/i);
  });
});

describe('summarizeOpenApi', () => {
  test('groups by first tag in document order, counts operations, keeps up to three examples, lists GET paths', () => {
    const s = summarizeOpenApi(sampleDoc);
    assert.equal(s.title, 'openrail');
    assert.equal(s.version, '0.1.0');
    assert.deepEqual(
      s.groups.map((g) => [g.name, g.operations, g.examples]),
      [
        ['trust', 4, ['GET /.well-known/did.json', 'GET /t/{tenant}/did.json', 'GET /.well-known/security.txt']],
        ['tenants', 2, ['POST /api/tenants', 'POST /v1/tenants']],
        ['things', 2, ['GET /api/things']],
        ['other', 1, ['GET /untagged']],
      ],
    );
    assert.equal(s.groups[0]?.description, 'DIDs & friends');
    assert.deepEqual(s.getPaths, [
      '/.well-known/did.json',
      '/t/{tenant}/did.json',
      '/.well-known/security.txt',
      '/build',
      '/api/things',
      '/untagged',
    ]);
  });

  test('a document of the wrong shape gives an empty summary, not an exception', () => {
    for (const doc of [null, 'x', [], { paths: 'x' }, { paths: { '/a': 'x', '/b': { get: 'x' } } }]) {
      const s = summarizeOpenApi(doc);
      assert.deepEqual(s.groups, []);
      assert.deepEqual(s.getPaths, []);
    }
  });
});
