/**
 * An operation's JSON answer as HTML: a list of objects becomes a table, an object a description
 * list, a value that names something another page shows becomes a link to it. The answer is data
 * from the API and is escaped like any other text; depth and size are bounded so that no answer
 * can make a page without end.
 */
import { html, type SafeHtml } from '../../web/html.ts';
import { humanize } from './schema-form.ts';

/** Where a value links to, given its field name, or undefined for plain text. */
export type Linker = (key: string, value: string, row: Readonly<Record<string, unknown>> | undefined) => string | undefined;

const MAX_DEPTH = 4;
const MAX_ROWS = 200;
const MAX_COLUMNS = 10;
const MAX_TEXT = 2000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

/** Characters after which an identifier may wrap: the separators of a DID, a URL, a JSON text. */
const SEPARATORS = new Set(':/.,;?&=#@|_');
/** A word this long or shorter is never given a break of ours. */
const SHORT_WORD = 24;
/** A run this long with no separator (a hash, a key) may wrap after it: such a run is no word. */
const LONG_RUN = 32;
/** A date and time reads as one word: it is never broken. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?$/;

/** The length of the separator at `i` (a percent-escape such as `%3A` is one), or 0 for none. */
function separatorAt(word: string, i: number): number {
  if (word[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(word.slice(i + 1, i + 3))) return 3;
  // A dot between digits (an IP address, a version) is part of a number.
  if (word[i] === '.' && /\d/.test(word[i - 1] ?? '') && /\d/.test(word[i + 1] ?? '')) return 0;
  return SEPARATORS.has(word[i] ?? '') ? 1 : 0;
}

/** A long word cut after each run of separators (and inside a separator-free run longer than LONG_RUN). */
export function wrapPoints(word: string): string[] {
  if (word.length <= SHORT_WORD || DATE_TIME.test(word)) return [word];
  const parts: string[] = [];
  let start = 0;
  let run = 0;
  for (let i = 0; i < word.length; ) {
    const sep = separatorAt(word, i);
    const end = i + Math.max(sep, 1);
    // A hyphen is a break the browser makes itself (before a letter): the run starts again after it.
    run = sep > 0 || word[i] === '-' ? 0 : run + 1;
    if (end < word.length && ((sep > 0 && separatorAt(word, end) === 0) || run >= LONG_RUN)) {
      parts.push(word.slice(start, end));
      start = end;
      run = 0;
    }
    i = end;
  }
  parts.push(word.slice(start));
  return parts;
}

/**
 * Text whose long words (a DID, a URL, a JSON text) may wrap after their separators and nowhere
 * else: a <wbr> after each, so that a table column is never narrower than a part of a word, and
 * no column needs `overflow-wrap: anywhere`, which lets a table squeeze a DID to one character a
 * line (docs/admin-app.md, "Tables").
 */
export function breakable(text: string): SafeHtml {
  return html`${text.split(/(\s+)/).map((word) => {
    const parts = wrapPoints(word);
    return parts.length === 1 ? html`${word}` : html`${parts.map((part, i) => (i === 0 ? html`${part}` : html`<wbr>${part}`))}`;
  })}`;
}

function scalar(key: string, value: unknown, link: Linker, row?: Record<string, unknown>): SafeHtml {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  if (typeof value === 'boolean') return html`${value ? 'yes' : 'no'}`;
  const text = breakable(clip(String(value)));
  const href = typeof value === 'string' || typeof value === 'number' ? link(key, String(value), row) : undefined;
  return href ? html`<a href="${href}">${text}</a>` : html`<span class="value">${text}</span>`;
}

/** A value inside a table cell: nested structures as short text. */
function cell(key: string, value: unknown, link: Linker, row: Record<string, unknown>): SafeHtml {
  if (Array.isArray(value) && value.every((v) => !isRecord(v) && !Array.isArray(v))) {
    return html`${value.map((v, i) => html`${i > 0 ? ', ' : ''}${scalar(key, v, link, row)}`)}`;
  }
  if (isRecord(value)) {
    // A small record reads as "name: value" pairs; deeper structure stays JSON.
    const pairs = Object.entries(value).map(
      ([k, v]) => `${humanize(k)}: ${isRecord(v) || Array.isArray(v) ? JSON.stringify(v) : String(v ?? '—')}`,
    );
    return html`<span class="value">${breakable(clip(pairs.join('; ')))}</span>`;
  }
  if (Array.isArray(value)) return html`<code>${breakable(clip(JSON.stringify(value)))}</code>`;
  return scalar(key, value, link, row);
}

/** An identifier, a date or a key: one word of at most TOKEN_MAX characters, which a wide screen shows on one line. */
const TOKEN_MAX = 100;
const isToken = (value: unknown) => typeof value === 'string' && value.length <= TOKEN_MAX && !/\s/.test(value);

function table(key: string, rows: Record<string, unknown>[], link: Linker): SafeHtml {
  const shown = rows.slice(0, MAX_ROWS);
  const columns = [...new Set(shown.flatMap((r) => Object.keys(r)))].slice(0, MAX_COLUMNS);
  return html`<div class="table-scroll" role="region" aria-label="${humanize(key)}" tabindex="0"><table>
<thead><tr>${columns.map((c) => html`<th scope="col">${humanize(c)}</th>`)}</tr></thead>
<tbody>${shown.map(
    (row) =>
      html`<tr>${columns.map((c) => html`<td${isToken(row[c]) ? html` class="token"` : null}>${cell(c, row[c], link, row)}</td>`)}</tr>\n`,
  )}</tbody>
</table></div>${rows.length > shown.length ? html`<p class="muted">${rows.length - shown.length} more not shown.</p>` : null}`;
}

const isTable = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length > 0 && value.every(isRecord);

export function renderValue(key: string, value: unknown, link: Linker, depth = 0): SafeHtml {
  if (depth > MAX_DEPTH) return html`<code>${breakable(clip(JSON.stringify(value)))}</code>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="muted">none</span>`;
    if (isTable(value)) return table(key, value, link);
    return html`<ul class="values">${value.slice(0, MAX_ROWS).map((v) => html`<li>${renderValue(key, v, link, depth + 1)}</li>`)}</ul>`;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return html`<span class="muted">none</span>`;
    // A table takes the whole width, under its label rather than beside it.
    return html`<dl class="fields">${entries.map(([k, v]) =>
      isTable(v)
        ? html`<dt class="wide">${humanize(k)}</dt><dd class="wide">${renderValue(k, v, link, depth + 1)}</dd>`
        : html`<dt>${humanize(k)}</dt><dd>${renderValue(k, v, link, depth + 1)}</dd>`,
    )}</dl>`;
  }
  return scalar(key, value, link, undefined);
}
