/**
 * docs/events.md and docs/webhooks.md state the events the service writes and what each carries:
 * both are held to the event map and RESERVED_EVENT_TYPES (src/core/events.ts), so a page cannot
 * call an emitted event reserved, leave one out, or name a member its payload does not have.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { EVENT_TYPES, type EventType, eventFields, RESERVED_EVENT_TYPES } from '../src/core/events.ts';

const page = (name: string) => readFileSync(new URL(`../docs/${name}`, import.meta.url), 'utf8');
const reserved: readonly string[] = RESERVED_EVENT_TYPES;
const written = EVENT_TYPES.filter((t) => !reserved.includes(t));

/** The rows of the first table under `heading`: the first cell's code span, and the row's cells. */
function tableUnder(text: string, heading: string): Map<string, string[]> {
  const from = text.indexOf(`\n## ${heading}\n`);
  assert.ok(from >= 0, `no section "${heading}"`);
  const rest = text.slice(from + heading.length + 5);
  const section = rest.slice(0, rest.search(/\n## /) === -1 ? undefined : rest.search(/\n## /));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, ''));
    const type = /^`([a-z]+\.[a-z_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (type) rows.set(type, cells);
  }
  return rows;
}

/** The members of each JSON object in a cell's code spans. */
function exampleKeys(cell: string): string[][] {
  return [...cell.matchAll(/`(\{.*?\})`/g)].map(([, json = '']) => Object.keys(JSON.parse(json) as object));
}

describe('the event pages', () => {
  test('docs/events.md lists every written event once, with exactly its payload members, and reserves the rest', () => {
    const text = page('events.md');
    const rows = tableUnder(text, 'Events written today');
    assert.deepEqual([...rows.keys()].sort(), [...written].sort());
    for (const [type, cells] of rows) {
      const data = cells.at(-1) ?? '';
      const named = new Set([...data.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1] as string));
      for (const field of eventFields(type as EventType)) {
        assert.ok(named.has(field), `events.md: ${type} does not name its member ${field}`);
      }
    }
    const section = text.slice(text.indexOf('## Reserved names'));
    const listed = [...section.slice(0, section.indexOf('\n## ', 3)).matchAll(/`([a-z]+\.[a-z_]+)`/g)].map((m) => m[1]);
    assert.deepEqual(listed, [...RESERVED_EVENT_TYPES]);
  });

  test('docs/webhooks.md shows an example of every written event, each member one its payload has, and calls only the reserved names reserved', () => {
    const text = page('webhooks.md');
    const rows = tableUnder(text, 'Event types');
    assert.deepEqual([...rows.keys()].sort(), [...written].sort());
    for (const [type, cells] of rows) {
      const examples = exampleKeys(cells[1] ?? '');
      assert.ok(examples.length > 0, `webhooks.md: ${type} has no JSON example`);
      const fields = eventFields(type as EventType);
      for (const keys of examples) {
        for (const key of keys) assert.ok(fields.includes(key), `webhooks.md: ${type}'s example has ${key}, not a member`);
      }
    }
    const sentence = /\n\n((?:`[a-z]+\.[a-z_]+`(?:, | and )?)+) (?:is a reserved name|are reserved names)/.exec(text);
    if (reserved.length === 0) {
      assert.equal(sentence, null, 'webhooks.md calls an event reserved, and none is');
      assert.match(text, /No name is reserved today/);
    } else {
      assert.ok(sentence, 'webhooks.md names the reserved events');
      assert.deepEqual(
        [...(sentence[1] ?? '').matchAll(/`([a-z]+\.[a-z_]+)`/g)].map((m) => m[1]),
        [...RESERVED_EVENT_TYPES],
      );
    }
  });
});

test("the activity feed's reference members are members of some event's payload", async () => {
  const { REF_FIELDS } = await import('../src/features/backoffice/audit/activity.ts');
  const members = new Set(EVENT_TYPES.flatMap(eventFields));
  for (const field of REF_FIELDS) assert.ok(members.has(field), `activity.ts refers to ${field}, which no event carries`);
});
