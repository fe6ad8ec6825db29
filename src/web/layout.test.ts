import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { installedWebAssets } from '../../test/helpers/web-assets.ts';
import { html } from './html.ts';
import { contentSecurityPolicy, MAIN_NAV, renderPage } from './layout.ts';

const assets = installedWebAssets();

/** Every inline script's text in a page. */
const inlineScripts = (page: string) => [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');

describe('contentSecurityPolicy', () => {
  test('no script: script-src none; the fixed directives in order', () => {
    assert.equal(
      contentSecurityPolicy({ scriptSrc: [], imgSrc: [] }),
      "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
  });
  test('sources are listed once each', () => {
    assert.match(
      contentSecurityPolicy({ scriptSrc: ["'a'", "'a'"], imgSrc: ['data:', 'data:'] }),
      /script-src 'a'; .* img-src 'self' data:;/,
    );
  });
});

describe('renderPage', () => {
  const page = renderPage({ title: 'Test <page>', main: html`<h1>Hello</h1>`, current: '/verify' }, assets);

  test('one layout: doctype, language, charset, viewport, title, skip link, landmarks', () => {
    const h = page.html;
    assert.ok(h.startsWith('<!doctype html>\n<html lang="en">'));
    assert.match(h, /<meta charset="utf-8">/);
    assert.match(h, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(h, /<title>Test &lt;page&gt; · openrail<\/title>/);
    assert.match(h, /<body>\n<a class="skip-link" href="#main">Skip to main content<\/a>/);
    assert.match(h, /<header class="site-header">[\s\S]*<nav class="site-nav" aria-label="Main">[\s\S]*<\/nav>[\s\S]*<\/header>/);
    assert.match(h, /<main id="main" tabindex="-1" [^>]*>\n<h1>Hello<\/h1>\n<\/main>/);
    assert.match(h, /<footer class="site-footer">[\s\S]*<\/footer>/);
    for (const item of MAIN_NAV) assert.ok(h.includes(`href="${item.href}"`), item.href);
    assert.match(h, /<a href="\/verify" aria-current="page">Verify<\/a>/);
    assert.equal(h.match(/aria-current/g)?.length, 1);
  });

  test('the site stylesheet is linked by its fingerprinted URL with SRI; nothing is styled inline', () => {
    const css = assets.linked('/assets/site.css');
    assert.ok(page.html.includes(`<link rel="stylesheet" href="${css.url}" integrity="${css.integrity}">`));
    assert.doesNotMatch(page.html, /<style|\sstyle=/i);
  });

  test('a page with no script allows none', () => {
    assert.equal(inlineScripts(page.html).length, 0);
    assert.match(page.csp, /script-src 'none'/);
  });

  test('a siteName is escaped like anything else', () => {
    const named = renderPage({ title: 'x', main: html``, siteName: 'Ghent <Trust>' }, assets);
    assert.ok(named.html.includes('<span>Ghent &lt;Trust&gt;</span>'));
    assert.ok(!named.html.includes('<Trust>'));
  });
});
