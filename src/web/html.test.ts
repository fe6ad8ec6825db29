import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { escapeHtml, type HtmlValue, html, isSafeHtml, join, raw, SafeHtml } from './html.ts';

const s = (value: SafeHtml) => value.toString();

describe('escapeHtml', () => {
  test('escapes the five characters that matter in text and quoted attributes', () => {
    assert.equal(escapeHtml(`& < > " '`), '&amp; &lt; &gt; &quot; &#39;');
  });

  test('leaves other text alone, and escapes & first (no double escaping of the output)', () => {
    assert.equal(escapeHtml('Ghent — café №1'), 'Ghent — café №1');
    assert.equal(escapeHtml('&lt;'), '&amp;lt;');
  });
});

describe('html`…`', () => {
  test('escapes every interpolated string in text', () => {
    const name = '<img src=x onerror=alert(1)>';
    assert.equal(s(html`<p>${name}</p>`), '<p>&lt;img src=x onerror=alert(1)&gt;</p>');
  });

  test('a closing script tag in a value cannot end a script element', () => {
    const value = '</script><script>alert(1)</script>';
    const out = s(html`<script type="application/json">${value}</script>`);
    assert.equal(out.match(/<\/script/gi)?.length, 1, 'only the template closes the element');
    assert.ok(out.includes('&lt;/script&gt;'));
  });

  test('attribute injection: a quote in a value cannot close the attribute', () => {
    const double = '" onmouseover="alert(1)';
    const single = "' onmouseover='alert(1)";
    assert.equal(s(html`<a title="${double}">x</a>`), '<a title="&quot; onmouseover=&quot;alert(1)">x</a>');
    assert.equal(s(html`<a title='${single}'>x</a>`), `<a title='&#39; onmouseover=&#39;alert(1)'>x</a>`);
    assert.equal(
      s(html`<input value="${'"><script>alert(1)</script>'}">`),
      '<input value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">',
    );
  });

  test('an unquoted attribute value is refused when the template is built', () => {
    assert.throws(() => html`<a href=${'/x onclick=alert(1)'}>x</a>`, /not quoted/);
    assert.throws(() => html`<input value = ${'a b'}>`, /not quoted/);
    // "=" in text is just text
    assert.equal(s(html`<p>x = ${1}</p>`), '<p>x = 1</p>');
  });

  test('a script-capable URL in a URL attribute becomes about:invalid', () => {
    for (const bad of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<b>',
      'vbscript:x',
    ]) {
      assert.equal(s(html`<a href="${bad}">x</a>`), '<a href="about:invalid">x</a>', bad);
    }
    assert.equal(s(html`<img src="${'javascript:x'}" alt="">`), '<img src="about:invalid" alt="">');
    assert.equal(s(html`<form action="${'javascript:x'}"></form>`), '<form action="about:invalid"></form>');
    // ordinary URLs pass, escaped
    assert.equal(s(html`<a href="${'/verify?a=1&b=2'}">x</a>`), '<a href="/verify?a=1&amp;b=2">x</a>');
    assert.equal(s(html`<a href="${'openid4vp://?x=1'}">x</a>`), '<a href="openid4vp://?x=1">x</a>');
    // only the start of a URL attribute is judged; other attributes are escaped text
    assert.equal(s(html`<a title="${'javascript:x'}">x</a>`), '<a title="javascript:x">x</a>');
  });

  test('a plain string is never markup, whatever it looks like or however it arrives', () => {
    const lookalike = { toString: () => '<b>bold</b>' };
    assert.equal(s(html`${'<b>bold</b>'}`), '&lt;b&gt;bold&lt;/b&gt;');
    assert.equal(
      s(html`${String(html`<b>bold</b>`)}`),
      '&lt;b&gt;bold&lt;/b&gt;',
      'a SafeHtml turned into a string is text again',
    );
    assert.equal(s(html`${lookalike as unknown as HtmlValue}`), '&lt;b&gt;bold&lt;/b&gt;', 'a look-alike object is text');
    assert.equal(s(html`${['<i>', '</i>']}`), '&lt;i&gt;&lt;/i&gt;', 'strings in arrays are escaped too');
    assert.equal(isSafeHtml('<b>'), false);
    assert.equal(isSafeHtml(lookalike), false);
  });

  test('SafeHtml cannot be constructed from outside', () => {
    const Ctor = SafeHtml as unknown as new (mint: unknown, markup: string) => SafeHtml;
    assert.throws(() => new Ctor(Symbol('SafeHtml.mint'), '<b>'), TypeError);
    assert.throws(() => new Ctor(undefined, '<b>'), TypeError);
  });

  test('SafeHtml values and raw() are inserted as they are', () => {
    const inner = html`<em>${'a&b'}</em>`;
    assert.equal(s(html`<p>${inner}</p>`), '<p><em>a&amp;b</em></p>');
    assert.equal(s(html`<p>${raw('<br>')}</p>`), '<p><br></p>');
    assert.ok(isSafeHtml(raw('x')));
  });

  test('arrays of SafeHtml are joined; null, undefined and false render nothing; numbers are text', () => {
    const items = ['a', '<b>', 'c'].map((x) => html`<li>${x}</li>`);
    assert.equal(s(html`<ul>${items}</ul>`), '<ul><li>a</li><li>&lt;b&gt;</li><li>c</li></ul>');
    assert.equal(s(html`${null}${undefined}${false}|${0}|${true}|${12n}`), '|0|true|12');
    assert.equal(s(html`${[[html`<i>`, 'x'], [null]]}`), '<i>x');
  });

  test('join() escapes items and a plain-string separator', () => {
    assert.equal(s(join([html`<b>1</b>`, '<2>'], ' & ')), '<b>1</b> &amp; &lt;2&gt;');
    assert.equal(s(join(['a', 'b'], html`<br>`)), 'a<br>b');
  });
});
