import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PASS_CLAIMS, PASS_SUBJECT } from '../../../test/helpers/issuance.ts';
import { ServiceError } from '../errors.ts';
import { type ClaimSpec, parseClaimSpec, parseClaimSpecs } from './claim-spec.ts';
import { checkSubject } from './subject.ts';

/** Interface spec, "Credential type and claim specifications", rule 6: written out here, not imported. */
const RESERVED = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'cnf', 'vct', 'status', '_sd', '_sd_alg'];

/** Asserts `fn` throws a ServiceError with `code`, whose message contains every string of `names` and matches `rule`. */
function refuses(fn: () => unknown, code: string, names: string[], rule: RegExp, what = '') {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ServiceError, `${what}: a ServiceError, got ${String(err)}`);
    assert.equal(err.code, code, `${what}: ${err.message}`);
    assert.equal(err.status, 400, what);
    for (const name of names)
      assert.ok(err.message.includes(name), `${what}: message ${JSON.stringify(err.message)} names ${name}`);
    assert.match(err.message, rule, what);
    return true;
  });
}

describe('claim specifications', () => {
  test('every spec form parses to its kind', () => {
    const cases: Array<[string, ClaimSpec]> = [
      ['holder_name', { key: 'holder_name', kind: 'text' }],
      ['nickname:text', { key: 'nickname', kind: 'text' }],
      ['birth_date:date', { key: 'birth_date', kind: 'date' }],
      ['balance:number', { key: 'balance', kind: 'number' }],
      ['fare:money', { key: 'fare', kind: 'money' }],
      ['student:bool', { key: 'student', kind: 'bool' }],
      ['zones:array(text)', { key: 'zones', kind: 'array(text)' }],
      ['trips:array(object)', { key: 'trips', kind: 'array(object)' }],
      ['class:enum(a|b|c)', { key: 'class', kind: 'enum', options: ['a', 'b', 'c'] }],
      ['seat:enum(window)', { key: 'seat', kind: 'enum', options: ['window'] }],
      ['level:enum(Gold tier|Silver tier)', { key: 'level', kind: 'enum', options: ['Gold tier', 'Silver tier'] }],
      ['_private', { key: '_private', kind: 'text' }],
      ['Mixed-Case_9', { key: 'Mixed-Case_9', kind: 'text' }],
      [`k${'x'.repeat(63)}`, { key: `k${'x'.repeat(63)}`, kind: 'text' }],
    ];
    for (const [spec, expected] of cases) assert.deepEqual(parseClaimSpec(spec), expected, spec);
  });

  test('enum options keep their registration order', () => {
    assert.deepEqual(parseClaimSpec('class:enum(second|first|third)').options, ['second', 'first', 'third']);
  });

  test('an unrecognised kind is refused with invalid_claim_spec naming the spec and the rule', () => {
    const kindRule = /kind after ":" must be one of text, date, number, money, bool, array\(text\), array\(object\) or enum/;
    for (const spec of [
      'a:float',
      'a:Date',
      'a:DATE',
      'a:integer',
      'a:string',
      'a:array(number)',
      'a:array',
      'a:array()',
      'a:',
      'a:date ',
      'a: date',
      'a:enum',
      'a:enum(a|b',
      'a:enum(a|b)x',
      'a:b:c',
    ]) {
      refuses(() => parseClaimSpec(spec), 'invalid_claim_spec', [JSON.stringify(spec)], kindRule, spec);
    }
  });

  test('a malformed enum option list is refused, naming the spec and the option rule', () => {
    const optionRule = /enum option .* must be 1 to 64 characters without "\|", "\(", "\)" or edge spaces/;
    for (const spec of ['a:enum()', 'a:enum(a||b)', 'a:enum(|a)', 'a:enum(a|)', 'a:enum( a|b)', 'a:enum(a|b )', 'a:enum(a|(b)']) {
      refuses(() => parseClaimSpec(spec), 'invalid_claim_spec', [JSON.stringify(spec)], optionRule, spec);
    }
    refuses(() => parseClaimSpec(`a:enum(${'o'.repeat(65)})`), 'invalid_claim_spec', ['a:enum('], optionRule, 'long option');
    refuses(
      () => parseClaimSpec('a:enum(a|a)'),
      'invalid_claim_spec',
      [JSON.stringify('a:enum(a|a)'), '"a"'],
      /listed twice/,
      'duplicate option',
    );
  });

  test('a bad key is refused with invalid_claim_spec naming the spec and the key rule', () => {
    const keyRule = /a key is 1 to 64 letters, digits, "_" or "-", starting with a letter or "_"/;
    for (const spec of [' a', 'a ', '', ':date', '1abc', '-a', 'a b', 'a.b', 'é', 'naïve', `k${'x'.repeat(64)}`, 'a/b:date']) {
      refuses(() => parseClaimSpec(spec), 'invalid_claim_spec', [JSON.stringify(spec)], keyRule, JSON.stringify(spec));
    }
  });

  test('every reserved key is refused with reserved_claim, with or without a kind', () => {
    for (const key of RESERVED) {
      for (const spec of [key, `${key}:date`, `${key}:enum(a|b)`]) {
        refuses(() => parseClaimSpec(spec), 'reserved_claim', [`"${key}"`], /reserved/, spec);
        refuses(() => parseClaimSpecs(['holder_name', spec]), 'reserved_claim', [`"${key}"`], /reserved/, `[..., ${spec}]`);
      }
    }
  });

  test('reserved keys are matched exactly (case-sensitive, whole key)', () => {
    for (const key of ['ISS', 'Status', 'issuer', 'sub_id', 'statuses', '_sd_', 'sd']) {
      assert.deepEqual(parseClaimSpec(key), { key, kind: 'text' }, key);
    }
  });

  test('parseClaimSpecs parses a whole registration in order', () => {
    assert.deepEqual(parseClaimSpecs(['holder_name', 'fare:money', 'class:enum(first|second)']), [
      { key: 'holder_name', kind: 'text' },
      { key: 'fare', kind: 'money' },
      { key: 'class', kind: 'enum', options: ['first', 'second'] },
    ]);
  });

  test('one bad spec refuses the whole registration', () => {
    refuses(
      () => parseClaimSpecs(['holder_name', 'fare:money', 'weight:float']),
      'invalid_claim_spec',
      ['"weight:float"'],
      /not recognised/,
    );
  });

  test('a duplicate key is refused, whatever the kinds', () => {
    for (const specs of [
      ['a', 'a'],
      ['a', 'a:date'],
      ['a:text', 'a'],
      ['b:number', 'a', 'b:money'],
    ]) {
      const dup = specs.find((s, i) => specs.findIndex((t) => t.split(':')[0] === s.split(':')[0]) !== i)?.split(':')[0];
      refuses(() => parseClaimSpecs(specs), 'invalid_claim_spec', [`"${dup}"`], /declared twice/, specs.join(','));
    }
  });

  test('an empty claims list is refused', () => {
    refuses(() => parseClaimSpecs([]), 'invalid_claim_spec', [], /at least one claim/);
  });

  test('at most 100 claims', () => {
    const specs = Array.from({ length: 100 }, (_, i) => `c${i}`);
    assert.equal(parseClaimSpecs(specs).length, 100);
    refuses(() => parseClaimSpecs([...specs, 'c100']), 'invalid_claim_spec', [], /at most 100 claims/);
  });
});

describe('subjects against their type', () => {
  const claims = parseClaimSpecs(PASS_CLAIMS);
  const valid: Record<string, unknown> = PASS_SUBJECT;
  const withValue = (key: string, value: unknown) => ({ ...valid, [key]: value });
  const accepts = (subject: Record<string, unknown>, what = JSON.stringify(subject)) =>
    assert.doesNotThrow(() => checkSubject(claims, subject), what);
  const refusesValue = (key: string, value: unknown, rule: RegExp) =>
    refuses(
      () => checkSubject(claims, withValue(key, value)),
      'invalid_subject',
      [`"${key}"`],
      rule,
      `${key}=${JSON.stringify(value)}`,
    );

  test('a subject that satisfies every claim is accepted', () => {
    accepts(valid);
    accepts(withValue('holder_name', ''), 'empty text');
    accepts(withValue('zones', []), 'empty array(text)');
    accepts(withValue('trips', []), 'empty array(object)');
    accepts(withValue('class', 'second'));
    accepts(withValue('student', true));
  });

  test('text must be a JSON string of at most 4096 characters', () => {
    accepts(withValue('holder_name', 'x'.repeat(4096)));
    for (const v of [42, true, null, ['Ada'], { name: 'Ada' }]) refusesValue('holder_name', v, /text must be a JSON string/);
    refusesValue('holder_name', 'x'.repeat(4097), /at most 4096 characters/);
  });

  test('number must be a JSON number; a numeric string is refused, never coerced', () => {
    for (const v of [0, -3, 12.5, -0.001, 1e21]) accepts(withValue('balance', v), `balance=${v}`);
    for (const v of ['12.5', '12', '0', '', true, null, [1]]) {
      refusesValue('balance', v, /number must be a JSON number, never a string/);
    }
  });

  test('money is a whole JSON number of minor units; negative allowed', () => {
    for (const v of [0, 450, -450, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) accepts(withValue('fare', v), `fare=${v}`);
    for (const v of ['450', '-450', '4.50', true, null]) {
      refusesValue('fare', v, /money must be a JSON number of minor units, never a string/);
    }
    for (const v of [450.5, -0.5, 0.1, 2 ** 53, -(2 ** 53), 1e21]) {
      refusesValue('fare', v, /money must be a whole number of minor units/);
    }
  });

  test('bool must be a JSON boolean', () => {
    for (const v of ['true', 'false', 1, 0, null, 'yes']) refusesValue('student', v, /bool must be a JSON boolean/);
  });

  test('enum must be one of the registered options, exactly', () => {
    for (const v of ['third', 'First', 'first ', '', 1, null, ['first']]) {
      // The refusal names the value it was given and every allowed one.
      const given = JSON.stringify(v).replace(/[[\]]/g, '\\$&');
      refusesValue('class', v, new RegExp(`enum value ${given} must be one of the registered options: first, second`));
    }
  });

  test('dates are YYYY-MM-DD naming a day that exists', () => {
    for (const v of ['2024-02-29', '2000-02-29', '1815-12-10', '2024-12-31', '9999-12-31', '0100-01-01']) {
      accepts(withValue('birth_date', v), v);
    }
    for (const v of [
      '2023-02-29',
      '1900-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-04-31',
      '2024-01-00',
      '2024-01-32',
      '2024-1-01',
      '2024-01-1',
      '24-01-01',
      '20240101',
      '2024/01/01',
      '2024-01-01T00:00:00Z',
      '2024-01-01T10:00',
      '2024-01-01 10:00',
      ' 2024-01-01',
      '2024-01-01\n',
      '+02024-01-01',
      '２０２４-01-01',
      '',
      1704067200000,
      null,
    ]) {
      refusesValue('birth_date', v, /date must be an ISO 8601 calendar date, YYYY-MM-DD/);
    }
  });

  test('dates in the years 0000 to 0099 are real days too', () => {
    // ISO 8601 and RFC 3339 full-date cover 0000-9999; Date.UTC maps years 0-99 to 1900-1999.
    for (const v of ['0001-01-01', '0099-12-31', '0000-02-29', '0004-02-29']) accepts(withValue('birth_date', v), v);
    refusesValue('birth_date', '0001-02-29', /YYYY-MM-DD/);
  });

  test('array(text) is a JSON array of strings', () => {
    for (const v of ['A', { 0: 'A' }, null, 1]) refusesValue('zones', v, /must be a JSON array/);
    refusesValue('zones', ['A', 2], /array\(text\) element 1 must be a JSON string/);
    refusesValue('zones', [null], /array\(text\) element 0 must be a JSON string/);
    refusesValue('zones', [['A']], /array\(text\) element 0 must be a JSON string/);
    refusesValue('zones', ['A', 'x'.repeat(4097)], /array\(text\) element 1 is longer than 4096/);
    accepts(
      withValue(
        'zones',
        Array.from({ length: 100 }, (_, i) => `z${i}`),
      ),
    );
    refusesValue(
      'zones',
      Array.from({ length: 101 }, (_, i) => `z${i}`),
      /an array has at most 100 elements/,
    );
  });

  test('array(object) is a JSON array of objects', () => {
    accepts(withValue('trips', [{ a: { b: [{ c: 1 }, 'x', null] } }, {}]));
    for (const v of ['x', { from: 'Ghent' }, null]) refusesValue('trips', v, /must be a JSON array/);
    for (const [v, i] of [
      [['x'], 0],
      [[{}, null], 1],
      [[[{ from: 'Ghent' }]], 0],
      [[{}, {}, 3], 2],
    ] as const) {
      refusesValue('trips', v, new RegExp(`array\\(object\\) element ${i} must be a JSON object`));
    }
  });

  test('array(object) elements carry no _sd, ... or _sd_alg key at any depth', () => {
    for (const carrier of ['_sd', '...', '_sd_alg']) {
      const rule = new RegExp(`array\\(object\\) element \\d+ uses "${carrier.replace(/\./g, '\\.')}", which SD-JWT reserves`);
      refusesValue('trips', [{ [carrier]: ['x'] }], rule);
      refusesValue('trips', [{ from: 'Ghent' }, { leg: { [carrier]: 'x' } }], rule);
      refusesValue('trips', [{ legs: [{ stop: { deeper: [{ [carrier]: 'x' }] } }] }], rule);
    }
    // The same names as values, or as part of a longer key, are ordinary data.
    accepts(withValue('trips', [{ note: '_sd', tag: '...', _sd_note: 1, sd: [], '....': 1 }]));
  });

  test('a key that is not a claim of the type is refused', () => {
    refuses(
      () => checkSubject(claims, { ...valid, nickname: 'Ada' }),
      'invalid_subject',
      ['"nickname"'],
      /is not a claim of this credential type/,
    );
  });

  test('every reserved key is refused with reserved_claim, even next to a valid subject', () => {
    for (const key of RESERVED) {
      refuses(() => checkSubject(claims, { ...valid, [key]: 'x' }), 'reserved_claim', [`"${key}"`], /reserved/, key);
    }
    // Also when the type would otherwise accept it: a reserved key can never be a claim.
    refuses(
      () => checkSubject([{ key: 'name', kind: 'text' }], { name: 'x', iss: 'x' }),
      'reserved_claim',
      ['"iss"'],
      /reserved/,
    );
  });

  test('every claim is required: a missing one is refused by name', () => {
    for (const claim of claims) {
      const subject: Record<string, unknown> = { ...valid };
      delete subject[claim.key];
      refuses(
        () => checkSubject(claims, subject),
        'invalid_subject',
        [`"${claim.key}"`],
        /is required by this credential type and missing/,
        claim.key,
      );
    }
    refuses(() => checkSubject(claims, {}), 'invalid_subject', ['"holder_name"'], /missing/, 'empty subject');
  });
});
