import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NOT_YET_ISOLATION_TESTED } from '../../src/ports/tenant-owned.ts';

const PORTS = join(import.meta.dirname, '..', '..', 'src', 'ports');

interface PortShape {
  name: string;
  /** Marked `@tenantOwned` in the doc comment right above it. */
  marked: boolean;
  /** A method of it takes a parameter named `tenant` or `within`. */
  takesTenant: boolean;
}

/** Every exported interface of a port file: its mark, and whether its methods take a tenant. */
function shapesOf(text: string): PortShape[] {
  const lines = text.split('\n');
  const shapes: PortShape[] = [];
  lines.forEach((line, i) => {
    const name = /^export interface (\w+)/.exec(line)?.[1];
    if (!name) return;
    let doc = '';
    if (lines[i - 1]?.trim().endsWith('*/')) {
      let j = i - 1;
      while (j >= 0 && !lines[j]?.trim().startsWith('/**')) j--;
      doc = lines.slice(j, i).join('\n');
    }
    const end = lines.findIndex((l, k) => k > i && l === '}');
    const body = lines.slice(i + 1, end).join('\n');
    shapes.push({
      name,
      marked: /^\s*(\/\*\*|\*)\s*@tenantOwned\b/m.test(doc),
      takesTenant: /^\s+\w+\??\([^)]*\b(tenant|within)\??:/m.test(body),
    });
  });
  return shapes;
}

/** The names in `TenantOwnedPorts`, as ports/tenant-owned.ts writes them. */
function listedPorts(): string[] {
  const text = readFileSync(join(PORTS, 'tenant-owned.ts'), 'utf8');
  const body = /export interface TenantOwnedPorts \{([^}]*)\}/.exec(text)?.[1] ?? '';
  return [...body.matchAll(/^\s+(\w+): \w+;/gm)].map((m) => m[1] as string).sort();
}

/** What the marks, the list and the ports' own signatures disagree on. */
function gaps(files: string[], listed: string[], notYet: Readonly<Record<string, string>>) {
  const shapes = files.flatMap(shapesOf);
  const marked = shapes.filter((s) => s.marked).map((s) => s.name);
  return {
    markedNotListed: marked.filter((n) => !listed.includes(n)).sort(),
    listedNotMarked: listed.filter((n) => !marked.includes(n)).sort(),
    takesTenantUnmarked: shapes
      .filter((s) => s.takesTenant && !s.marked && !(s.name in notYet))
      .map((s) => s.name)
      .sort(),
  };
}

const portFiles = () =>
  readdirSync(PORTS)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(PORTS, f), 'utf8'));

describe('tenant-owned ports', () => {
  test('every port marked @tenantOwned is in TenantOwnedPorts (so the isolation suite must cover it), and every port taking a tenant is marked', () => {
    assert.deepEqual(gaps(portFiles(), listedPorts(), NOT_YET_ISOLATION_TESTED), {
      markedNotListed: [],
      listedNotMarked: [],
      takesTenantUnmarked: [],
    });
    for (const name of Object.keys(NOT_YET_ISOLATION_TESTED)) {
      assert.ok(!listedPorts().includes(name), `${name} is both covered and written down as not yet covered`);
    }
  });

  test('a new port that takes a tenant, unmarked or marked but not listed, is named', () => {
    const scratch = [
      '/** A scratch store. */',
      'export interface ScratchStore {',
      '  list(tenant: string, limit: number): Promise<string[]>;',
      '}',
      '/**',
      ' * Another.',
      ' * @tenantOwned',
      ' */',
      'export interface MarkedStore {',
      '  get(id: string, within: string | null): Promise<string | undefined>;',
      '}',
    ].join('\n');
    const found = gaps([...portFiles(), scratch], listedPorts(), NOT_YET_ISOLATION_TESTED);
    assert.deepEqual(found.takesTenantUnmarked, ['ScratchStore']);
    assert.deepEqual(found.markedNotListed, ['MarkedStore']);
  });
});
