/**
 * @module test/router/path-differential
 * compilePath against path-to-regexp@0.1.13 itself over thousands of generated patterns and
 * options, and roa's Layer.match against Express 4's Layer over paths made to fit them.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { compilePath, type PathOptions, type RoutePath } from '../../src/router/path.js';
import { Layer } from '../../src/router/layer.js';

const require = createRequire(import.meta.url);
type P2R = (path: RoutePath, keys: unknown[], options: PathOptions) => RegExp;
const pathToRegexp = require('path-to-regexp') as P2R;
interface ExpressLayer {
  match(path: string): boolean;
  params: Record<string, unknown>;
  path: string | undefined;
  keys: unknown[];
  regexp: RegExp & { fast_star?: boolean; fast_slash?: boolean };
}
const ExpressLayer = require('express/lib/router/layer.js') as new (p: RoutePath, o: PathOptions, fn: () => void) => ExpressLayer;

const SEED = 20240917;
const RUNS = 4000;

/** One piece of a pattern: its source text and paths it is meant to (nearly) match. */
interface Piece {
  src: string;
  sample: fc.Arbitrary<string>;
}

const wordChars = 'abcXYZ019_';
const word = fc.string({ unit: fc.constantFrom(...wordChars), minLength: 1, maxLength: 5 });
const literalText = fc.string({ unit: fc.constantFrom(...'abcDEF09.-~_%@!', '..'), minLength: 1, maxLength: 6 });
const name = fc.constantFrom('id', 'user', 'format', 'a', 'b', 'x_1', 'Name', '0');
const valueText = fc.string({ unit: fc.constantFrom(...'abcXYZ12.-_~', '%20', '%2F', '%E2%82%AC', '%', '%zz', '%0', '%00'), minLength: 0, maxLength: 6 });
const anyText = fc.string({ unit: fc.constantFrom(...'ab1/.-_', '%41', '%', '//'), minLength: 0, maxLength: 10 });
const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 4 });

const sampleOf = (...parts: Array<fc.Arbitrary<string> | string>): fc.Arbitrary<string> =>
  fc.tuple(...parts.map((p) => (typeof p === 'string' ? fc.constant(p) : p))).map((xs) => xs.join(''));
const maybe = (a: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.oneof(fc.constant(''), a);

const piece: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 5, arbitrary: literalText.map((t) => ({ src: '/' + t, sample: fc.constant('/' + t) })) },
  { weight: 4, arbitrary: name.map((n) => ({ src: '/:' + n, sample: sampleOf('/', valueText) })) },
  { weight: 2, arbitrary: name.map((n) => ({ src: '/:' + n + '?', sample: maybe(sampleOf('/', valueText)) })) },
  { weight: 2, arbitrary: name.map((n) => ({ src: '/:' + n + '(\\d+)', sample: sampleOf('/', digits) })) },
  { weight: 1, arbitrary: name.map((n) => ({ src: '/:' + n + '(\\d+)?', sample: maybe(sampleOf('/', digits)) })) },
  { weight: 1, arbitrary: name.map((n) => ({ src: '/:' + n + '(.*)', sample: sampleOf('/', anyText) })) },
  { weight: 1, arbitrary: name.map((n) => ({ src: '/:' + n + '*', sample: sampleOf('/', valueText, maybe(sampleOf('/', anyText))) })) },
  { weight: 2, arbitrary: fc.constant({ src: '/*', sample: sampleOf('/', anyText) }) },
  { weight: 1, arbitrary: fc.constant({ src: '*', sample: anyText }) },
  { weight: 2, arbitrary: fc.constant({ src: '.:format', sample: sampleOf('.', word) }) },
  { weight: 2, arbitrary: fc.constant({ src: '.:format?', sample: maybe(sampleOf('.', word)) }) },
  { weight: 1, arbitrary: fc.constant({ src: '/.:ext', sample: sampleOf('/.', word) }) },
  { weight: 1, arbitrary: word.map((w) => ({ src: '/(' + w + ')?', sample: maybe(fc.constant('/' + w)) })) },
  { weight: 1, arbitrary: word.map((w) => ({ src: '/(' + w + ')', sample: fc.constant('/' + w) })) },
  { weight: 2, arbitrary: fc.constant({ src: '/:a-:b', sample: sampleOf('/', valueText, '-', valueText) }) },
  { weight: 1, arbitrary: fc.constant({ src: '/:a.:b', sample: sampleOf('/', valueText, '.', valueText) }) },
  { weight: 2, arbitrary: fc.tuple(literalText, name).map(([t, n]) => ({ src: '/' + t + ':' + n, sample: sampleOf('/' + t, valueText) })) },
  { weight: 1, arbitrary: fc.tuple(word, name).map(([t, n]) => ({ src: '/' + t + '-:' + n + '?', sample: sampleOf('/' + t, maybe(sampleOf('-', valueText))) })) },
  { weight: 1, arbitrary: fc.constantFrom('\\.', '\\-', '\\:', '\\*', '\\\\', '\\(x\\)', '\\/').map((e) => ({ src: '/' + e, sample: fc.constant('/' + e.replace(/\\(.)/g, '$1')) })) },
  { weight: 1, arbitrary: fc.constantFrom('+', '$', '^', '|', '[a]', '(', ')', '{1}', '\n', '\u2028', ':', '?', '\\').map((c) => ({ src: c, sample: fc.constant(c) })) },
  { weight: 1, arbitrary: fc.constant({ src: '/', sample: fc.constant('/') }) },
);

interface Pattern {
  src: string;
  sample: fc.Arbitrary<string>;
}

const pattern: fc.Arbitrary<Pattern> = fc.array(piece, { minLength: 0, maxLength: 6 }).map((pieces) => ({
  src: pieces.map((p) => p.src).join(''),
  sample: pieces.length === 0 ? fc.constant('') : fc.tuple(...pieces.map((p) => p.sample)).map((xs) => xs.join('')),
  // Counterexamples print as the pattern text, not as the arbitraries inside.
  [fc.toStringMethod](): string {
    return JSON.stringify(this.src);
  },
}));

const options = fc.record({ strict: fc.boolean(), sensitive: fc.boolean(), end: fc.boolean() });

/** Paths derived from a sample: case flips, trailing slashes, extra segments, dots, junk escapes. */
const mutate = (sample: string): fc.Arbitrary<string> => fc.tuple(
  fc.constantFrom('none', 'upper', 'lower', 'flip'),
  fc.constantFrom('', '', '/', '//', '/x', '.json', '/%', '/%zz', '/..', '/%00'),
  fc.boolean(),
).map(([caseMode, suffix, leadingSlash]) => {
  let p = sample;
  if (caseMode === 'upper') p = p.toUpperCase();
  else if (caseMode === 'lower') p = p.toLowerCase();
  else if (caseMode === 'flip') p = [...p].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
  p += suffix;
  if (leadingSlash && p[0] !== '/') p = '/' + p;
  return p;
});

function oracle(path: RoutePath, opts: PathOptions): { source: string; flags: string; keys: unknown[] } | { error: string } {
  try {
    const keys: unknown[] = [];
    const re = pathToRegexp(path, keys, opts);
    return { source: re.source, flags: re.flags, keys };
  } catch (e) {
    return { error: (e as Error).name };
  }
}

function ours(path: RoutePath, opts: PathOptions): { source: string; flags: string; keys: unknown[] } | { error: string } {
  try {
    const { regexp, keys } = compilePath(path, opts);
    return { source: regexp.source, flags: regexp.flags, keys: keys.map((k) => ({ ...k })) };
  } catch (e) {
    return { error: (e as Error).name };
  }
}

type Outcome = { match: false } | { match: true; path: string | undefined; params: Record<string, unknown> } | { status: unknown };

/**
 * Express 4's Layer (fast paths, param decoding, 400 on bad escapes) over a path-to-regexp@0.1.13
 * regexp (the version express@4.22 bundles).
 */
function expressLayer012(path: RoutePath, opts: PathOptions): ExpressLayer {
  const layer = new ExpressLayer('/', opts, () => {});
  layer.regexp = pathToRegexp(path, (layer.keys = []), opts);
  layer.regexp.fast_star = path === '*';
  layer.regexp.fast_slash = path === '/' && opts.end === false;
  return layer;
}

function expressMatch(path: RoutePath, opts: PathOptions, url: string): Outcome {
  const layer = expressLayer012(path, opts);
  try {
    if (!layer.match(url)) return { match: false };
    return { match: true, path: layer.path, params: { ...layer.params } };
  } catch (e) {
    return { status: (e as { status?: unknown }).status };
  }
}

function roaMatch(path: RoutePath, opts: PathOptions, url: string): Outcome {
  const layer = new Layer(path, { strict: !!opts.strict, sensitive: !!opts.sensitive, end: opts.end !== false }, () => {});
  try {
    const m = layer.match(url);
    if (m === undefined) return { match: false };
    return { match: true, path: m.path, params: { ...m.params } };
  } catch (e) {
    return { status: (e as { status?: unknown }).status };
  }
}

/** Compiles with both, unless the pattern is not a valid regex for either. */
function bothCompile(path: RoutePath, opts: PathOptions): boolean {
  return !('error' in oracle(path, opts));
}

describe('compilePath against path-to-regexp@0.1.13', () => {
  it('produces the same source, flags and keys for generated string patterns', () => {
    fc.assert(fc.property(pattern, options, (p, opts) => {
      assert.deepEqual(ours(p.src, opts), oracle(p.src, opts), `pattern ${JSON.stringify(p.src)} ${JSON.stringify(opts)}`);
    }), { seed: SEED, numRuns: RUNS });
  });

  it('produces the same source and keys for patterns starting with a slash and a name', () => {
    const fixed = fc.tuple(fc.constantFrom('/users', '/:id', '', '/api/v1'), pattern).map(([head, p]) => head + p.src);
    fc.assert(fc.property(fixed, options, (src, opts) => {
      assert.deepEqual(ours(src, opts), oracle(src, opts), `pattern ${JSON.stringify(src)} ${JSON.stringify(opts)}`);
    }), { seed: SEED + 1, numRuns: RUNS });
  });

  it('produces the same regexp and keys for arrays of patterns', () => {
    const arrays = fc.array(fc.oneof(pattern.map((p) => p.src as string | RegExp), fc.constant(/^\/re\/(\d+)/i)), { minLength: 1, maxLength: 3 });
    fc.assert(fc.property(arrays, options, (paths, opts) => {
      assert.deepEqual(ours(paths, opts), oracle(paths, opts), `pattern ${String(paths)} ${JSON.stringify(opts)}`);
    }), { seed: SEED + 2, numRuns: 1500 });
  });

  it('counts RegExp groups as path-to-regexp does (named, unnamed, escaped, non-capturing)', () => {
    const groups = fc.array(fc.constantFrom('(a)', '(?:b)', '(?<n>c)', '\\(', '\\)', '(?=d)', '(?!e)', '[(]', 'x', '/', '(?<m>f(g))', '(?<=h)'), { minLength: 0, maxLength: 6 });
    fc.assert(fc.property(groups, fc.boolean(), (parts, sensitive) => {
      let re: RegExp;
      try {
        re = new RegExp('^/' + parts.join(''), sensitive ? '' : 'i');
      } catch {
        return;
      }
      const opts = { sensitive };
      assert.deepEqual(ours(re, opts), oracle(re, opts), `regexp ${String(re)}`);
    }), { seed: SEED + 3, numRuns: 1500 });
  });

  it('rejects a path that is neither a string, a RegExp nor an array', () => {
    assert.throws(() => compilePath(42 as unknown as string), TypeError);
  });
});

describe('Layer.match against Express 4 Layer', () => {
  it('matches, consumes and decodes the same for paths made from the pattern', () => {
    const cases = pattern.chain((p) => fc.tuple(fc.constant(p.src), options, fc.array(p.sample.chain(mutate), { minLength: 1, maxLength: 6 })));
    let matched = 0;
    fc.assert(fc.property(cases, ([src, opts, urls]) => {
      if (!bothCompile(src, opts)) return;
      for (const url of urls) {
        const want = expressMatch(src, opts, url);
        if ('match' in want && want.match) matched++;
        assert.deepEqual(roaMatch(src, opts, url), want, `pattern ${JSON.stringify(src)} ${JSON.stringify(opts)} path ${JSON.stringify(url)}`);
      }
    }), { seed: SEED + 4, numRuns: RUNS });
    // The generator is only useful if a good share of its paths do match.
    assert.ok(matched > RUNS / 2, `only ${matched} matching paths`);
  });

  it('agrees on random paths that were not made from the pattern', () => {
    const segment = fc.constantFrom('a', 'A', 'users', 'USERS', '42', '', '.', '..', '%', '%2', '%zz', '%41', '%00', 'x.json', 'a-b', '~', '\u00e9', '%C3%A9');
    const randomPath = fc.array(segment, { minLength: 0, maxLength: 6 }).map((s) => '/' + s.join('/'));
    fc.assert(fc.property(pattern, options, fc.array(randomPath, { minLength: 1, maxLength: 5 }), (p, opts, urls) => {
      if (!bothCompile(p.src, opts)) return;
      for (const url of urls) {
        assert.deepEqual(roaMatch(p.src, opts, url), expressMatch(p.src, opts, url), `pattern ${JSON.stringify(p.src)} ${JSON.stringify(opts)} path ${JSON.stringify(url)}`);
      }
    }), { seed: SEED + 5, numRuns: RUNS });
  });

  it('agrees for the fast paths "/" (mount) and "*"', () => {
    const urls = ['/', '/a', '/a/b/', '/%zz', '/%41', ''];
    for (const src of ['/', '*']) {
      for (const end of [true, false]) {
        for (const url of urls) {
          const opts = { end, strict: false, sensitive: false };
          assert.deepEqual(roaMatch(src, opts, url), expressMatch(src, opts, url), `${src} end=${end} ${url}`);
        }
      }
    }
  });
});

describe('Layer.match against the express@4.22 release (path-to-regexp 0.1.13)', () => {
  // path-to-regexp 0.1.13 resets the "backtrack" text after each parameter and after `*`, so
  // segments with three or more params split as Express gives them: /:a-:b-:c on /1-2-3-4 is
  // {a:'1-2',b:'3',c:'4'} (0.1.12 gave {a:'1',b:'2',c:'3-4'}).
  it('splits /:a-:b-:c like the Express release', () => {
    const opts = { strict: false, sensitive: false, end: true };
    const express = new ExpressLayer('/:a-:b-:c', opts, () => {});
    assert.ok(express.match('/1-2-3-4'));
    assert.deepEqual(roaMatch('/:a-:b-:c', opts, '/1-2-3-4'), { match: true, path: '/1-2-3-4', params: { ...express.params } });
  });
});
