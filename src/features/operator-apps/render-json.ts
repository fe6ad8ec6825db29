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

function scalar(key: string, value: unknown, link: Linker, row?: Record<string, unknown>): SafeHtml {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  if (typeof value === 'boolean') return html`${value ? 'yes' : 'no'}`;
  const text = clip(String(value));
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
    return html`<span class="value">${clip(pairs.join('; '))}</span>`;
  }
  if (Array.isArray(value)) return html`<code>${clip(JSON.stringify(value))}</code>`;
  return scalar(key, value, link, row);
}

function table(key: string, rows: Record<string, unknown>[], link: Linker): SafeHtml {
  const shown = rows.slice(0, MAX_ROWS);
  const columns = [...new Set(shown.flatMap((r) => Object.keys(r)))].slice(0, MAX_COLUMNS);
  return html`<div class="table-scroll" role="region" aria-label="${humanize(key)}" tabindex="0"><table>
<thead><tr>${columns.map((c) => html`<th scope="col">${humanize(c)}</th>`)}</tr></thead>
<tbody>${shown.map((row) => html`<tr>${columns.map((c) => html`<td>${cell(c, row[c], link, row)}</td>`)}</tr>\n`)}</tbody>
</table></div>${rows.length > shown.length ? html`<p class="muted">${rows.length - shown.length} more not shown.</p>` : null}`;
}

export function renderValue(key: string, value: unknown, link: Linker, depth = 0): SafeHtml {
  if (depth > MAX_DEPTH) return html`<code>${clip(JSON.stringify(value))}</code>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="muted">none</span>`;
    if (value.every(isRecord)) return table(key, value, link);
    return html`<ul class="values">${value.slice(0, MAX_ROWS).map((v) => html`<li>${renderValue(key, v, link, depth + 1)}</li>`)}</ul>`;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return html`<span class="muted">none</span>`;
    return html`<dl class="fields">${entries.map(([k, v]) => html`<dt>${humanize(k)}</dt><dd>${renderValue(k, v, link, depth + 1)}</dd>`)}</dl>`;
  }
  return scalar(key, value, link, undefined);
}
