/**
 * @module test/gateway/header-memo
 * The hit path's memo of a field value's normalisation: computed once per value, right whatever the order of values.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { headerMemo } from '../../src/gateway/header-memo.js';
import { acceptNormaliser } from '../../src/gateway/accept-normaliser.js';

describe('headerMemo', () => {
  it('computes each value once, repeated or alternating, from fresh strings', () => {
    const seen: string[] = [];
    const upper = headerMemo((v) => {
      seen.push(v);
      return v.toUpperCase();
    }, 10);
    const fresh = (s: string): string => Buffer.from(s).toString('latin1');
    for (const v of ['gzip', 'gzip', 'br', 'gzip', 'br', 'br', 'identity', 'gzip']) assert.equal(upper(fresh(v)), v.toUpperCase());
    assert.deepEqual(seen, ['gzip', 'br', 'identity']);
  });

  it('remembers undefined and empty results like any other', () => {
    let calls = 0;
    const nothing = headerMemo((v) => {
      calls++;
      return v === '' ? '' : undefined;
    }, 10);
    for (const v of ['', 'x', '', 'x', 'x']) assert.equal(nothing(v), v === '' ? '' : undefined);
    assert.equal(calls, 2);
  });

  it('holds at most `limit` values besides the last one, computing a forgotten one again', () => {
    const seen: string[] = [];
    const id = headerMemo((v) => {
      seen.push(v);
      return v;
    }, 2);
    for (const v of ['a', 'b', 'c', 'a']) assert.equal(id(v), v);
    assert.deepEqual(seen, ['a', 'b', 'c', 'a']);
  });
});

describe('acceptNormaliser through the memo', () => {
  it('answers as negotiation does whatever came before: alternating, absent and blank Accepts', () => {
    const n = acceptNormaliser(['application/xml', 'application/json', 'text/html']);
    const cases: Array<[string | undefined, string]> = [
      ['text/html,application/xml;q=0.9', 'text/html'],
      ['text/html,application/xml;q=0.9', 'text/html'],
      [undefined, 'application/xml'],
      ['application/json', 'application/json'],
      ['  ', 'application/xml'],
      ['image/png', 'image/png'],
      ['text/html,application/xml;q=0.9', 'text/html'],
      ['  ', 'application/xml'],
      ['application/json', 'application/json'],
    ];
    for (const [accept, expected] of cases) assert.equal(n(accept), expected, String(accept));
  });
});
