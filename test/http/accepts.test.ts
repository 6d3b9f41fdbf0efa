/**
 * @module test/http/accepts
 * negotiate(): RFC 9110 §12.5.1 proactive negotiation on Accept, checked by example and against
 * negotiator (what Express 4's req.accepts and res.format use).
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { acceptsType, negotiate } from '../../src/http/accepts.js';

const require = createRequire(import.meta.url);
const Negotiator = require('negotiator') as new (req: { headers: { accept: string } }) => { mediaTypes(offers: string[]): string[] };

const JSON_TYPE = 'application/json';
const HTML = 'text/html';

describe('negotiate', () => {
  it('picks the first offer when Accept is missing', () => {
    assert.equal(negotiate(undefined, [HTML, JSON_TYPE]), HTML);
  });

  it('picks the first offer when Accept is blank', () => {
    assert.equal(negotiate('  ', [JSON_TYPE, HTML]), JSON_TYPE);
  });

  it('picks the offer the client names', () => {
    assert.equal(negotiate(JSON_TYPE, [HTML, JSON_TYPE]), JSON_TYPE);
  });

  it('picks the higher quality', () => {
    assert.equal(negotiate('text/html;q=0.4, application/json;q=0.9', [HTML, JSON_TYPE]), JSON_TYPE);
  });

  it('lets a specific type override a wildcard', () => {
    assert.equal(negotiate('*/*;q=0.9, text/html;q=0.1', [HTML, JSON_TYPE]), JSON_TYPE);
  });

  it('excludes a type given q=0 even under */*', () => {
    assert.equal(negotiate('text/html;q=0, */*', [HTML]), undefined);
  });

  it('matches a subtype wildcard', () => {
    assert.equal(negotiate('application/*', [HTML, JSON_TYPE]), JSON_TYPE);
  });

  it('matches media types case-insensitively and returns the offer as given', () => {
    assert.equal(negotiate('TEXT/HTML', ['Text/Html']), 'Text/Html');
  });

  it('returns undefined when nothing offered is acceptable', () => {
    assert.equal(negotiate('image/png', [HTML, JSON_TYPE]), undefined);
  });

  it('returns undefined when there is nothing to offer', () => {
    assert.equal(negotiate('*/*', []), undefined);
  });

  it('prefers the server order among equal matches', () => {
    assert.equal(negotiate('*/*', [JSON_TYPE, HTML]), JSON_TYPE);
  });

  it('tells whether one type is acceptable', () => {
    assert.equal(acceptsType('text/html,application/xhtml+xml,*/*;q=0.8', HTML), true);
    assert.equal(acceptsType('application/json', HTML), false);
  });

  it('agrees with negotiator on headers with distinct ranges and q-values', () => {
    const range = fc.constantFrom('text/html', 'application/json', 'text/*', '*/*', 'application/*', 'image/png', 'TEXT/PLAIN', 'application/xml');
    const q = fc.constantFrom('', ';q=0', ';q=0.5', ';q=1', ';q=0.8', ';q=0.001', ' ; q=0.3');
    const header = fc.uniqueArray(fc.tuple(range, q), { minLength: 1, maxLength: 5, selector: (t) => t[0].toLowerCase() })
      .map((xs) => xs.map(([r, p]) => r + p).join(', '));
    const offers = fc.uniqueArray(fc.constantFrom('text/html', 'application/json', 'text/plain', 'application/xml', 'image/png'), { minLength: 1, maxLength: 5 });
    fc.assert(fc.property(header, offers, (h, o) => {
      assert.equal(negotiate(h, o), new Negotiator({ headers: { accept: h } }).mediaTypes(o)[0], `Accept: ${h} offers ${o.join(' ')}`);
    }), { seed: 12, numRuns: 3000 });
  });

  // RFC 9110 §12.5.1: a range with parameters applies only to representations with those
  // parameters. roa counts `text/plain;format=flowed` as the most specific match for a plain
  // `text/plain` offer and gives it q=1, where the RFC (and negotiator) give it q=0.5 here.
  it('does not let a parameterised range decide for an offer without the parameter', () => {
    assert.equal(negotiate('text/plain;format=flowed, application/json;q=0.8, text/plain;q=0.5', ['text/plain', JSON_TYPE]), JSON_TYPE);
  });

  // negotiator (Express 4) takes the best q among equally specific duplicate ranges; roa takes
  // the first one listed. RFC 9110 leaves duplicates undefined, so this is a compatibility note.
  it('takes the highest q among duplicate ranges, as Express does', () => {
    assert.equal(negotiate('text/html;q=0, text/html;q=0.8', [HTML]), HTML);
  });
});
