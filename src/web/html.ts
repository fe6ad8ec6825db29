/**
 * Server-side HTML with escaping as the default. `html` is a tagged template: every interpolated
 * value is escaped for text and quoted-attribute context (& < > " ' become character references),
 * unless it is a SafeHtml, which only `html`, `join` and `raw()` can make. A plain string therefore
 * never becomes markup, however it reached the template.
 *
 *   html`<p class="${cls}">${name}</p>`   // cls and name are escaped
 *   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`   // arrays of SafeHtml are joined
 *
 * Two mistakes escaping cannot repair are refused when the template is built:
 * - an attribute value that is not quoted (`<a href=${x}>`): a space in x would start a new
 *   attribute, so the template throws;
 * - a URL attribute (href, src, action, formaction) given a plain string with a script-capable
 *   scheme (javascript:, vbscript:, data:): the value is replaced by `about:invalid`.
 */

/** Not exported: only this module can name it, so only this module can construct a SafeHtml. */
const MINT: unique symbol = Symbol('SafeHtml.mint');

/**
 * Markup that is safe to send as is: made only by `html`, `raw` and `join`. The private field makes
 * the type nominal (a look-alike object does not type-check) and `instanceof` tells it at run time.
 */
export class SafeHtml {
  readonly #markup: string;

  constructor(mint: typeof MINT, markup: string) {
    if (mint !== MINT) throw new TypeError('SafeHtml is made by html`…` or raw(), never constructed directly');
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

const trusted = (markup: string) => new SafeHtml(MINT, markup);

/** Anything that may be interpolated: escaped unless it is SafeHtml; null, undefined and false render nothing. */
export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for element content and for a quoted attribute value alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

export function isSafeHtml(value: unknown): value is SafeHtml {
  return value instanceof SafeHtml;
}

/**
 * Trusted literal markup, such as a fixed SVG icon or an inline script read from our own files.
 * Never pass it anything that came from a request, a database or a document.
 */
export function raw(markup: string): SafeHtml {
  return trusted(markup);
}

/** An attribute whose value is a URL the browser may navigate to or load. */
const URL_ATTRIBUTE = /\s(?:href|src|action|formaction|xlink:href)\s*=\s*["']$/i;
/** `name=` right before the value, with no opening quote. */
const UNQUOTED_ATTRIBUTE = /\s[^\s"'<>/=]+\s*=\s*$/;
/** Schemes that run script or carry a document of their own when navigated to. */
const UNSAFE_SCHEME = /^(?:javascript|vbscript|data):/i;

/** The scheme of a URL as a browser reads it: control characters and spaces are ignored inside it. */
function unsafeUrl(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers strip these before reading the scheme
  return UNSAFE_SCHEME.test(value.replace(/[\u0000-\u0020]/g, ''));
}

function render(value: HtmlValue, inUrlAttribute: boolean): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map((v) => render(v, inUrlAttribute)).join('');
  const text = String(value);
  if (inUrlAttribute && unsafeUrl(text)) return 'about:invalid';
  return escapeHtml(text);
}

/** Inside a start tag: the last `<` written comes after the last `>` (escaped values contain neither). */
const insideTag = (out: string) => out.lastIndexOf('<') > out.lastIndexOf('>');

/**
 * What each interpolation's preceding literal says, read once per template: a template's literals
 * are the same frozen array on every call from its place in the code, so the two tests below are
 * made once per template, not once per page.
 */
interface TemplateShape {
  /** The literal before interpolation i ends in `name=` with no opening quote. */
  unquoted: boolean[];
  /** The literal before interpolation i opens a URL attribute's quoted value. */
  url: boolean[];
}
const shapes = new WeakMap<TemplateStringsArray, TemplateShape>();

function shapeOf(strings: TemplateStringsArray): TemplateShape {
  let shape = shapes.get(strings);
  if (!shape) {
    const before = strings.slice(0, -1);
    shape = { unquoted: before.map((s) => UNQUOTED_ATTRIBUTE.test(s)), url: before.map((s) => URL_ATTRIBUTE.test(s)) };
    shapes.set(strings, shape);
  }
  return shape;
}

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  const shape = shapeOf(strings);
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    const inTag = insideTag(out);
    if (inTag && shape.unquoted[i]) {
      throw new Error(`html: the attribute before interpolation ${i} is not quoted: write name="\${…}"`);
    }
    out += render(values[i], inTag && shape.url[i] === true) + (strings[i + 1] ?? '');
  }
  return trusted(out);
}

/** Joins fragments with a separator that is itself escaped unless it is SafeHtml. */
export function join(items: readonly HtmlValue[], separator: HtmlValue = ''): SafeHtml {
  const sep = render(separator, false);
  return trusted(items.map((item) => render(item, false)).join(sep));
}
