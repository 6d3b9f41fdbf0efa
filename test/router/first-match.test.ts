/**
 * @module test/router/first-match
 * Matcher.first (the first-route search dispatch starts from, generated code or trie loop) must
 * answer what a scan of the stack in definition order answers: the first route whose method matches
 * and whose regex matches, with its decoded params, or the same 400 for a malformed escape.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Matcher } from '../../src/router/matcher.js';
import { Router } from '../../src/router/router.js';
import type { RoutePath } from '../../src/router/path.js';

const SEED = 4242;
const noop = (): void => {};

const ROUTE_PATHS: RoutePath[] = [
  '/', '/gists', '/gists/starred', '/gists/public', '/gists/:id', '/gists/:id/comments',
  '/gists/:gist_id/comments/:comment_id', '/Gists/Starred', '/users/:user', '/users/:user?',
  '/users/:user/repos', '/repos/:owner/:repo', '/repos/:owner/:repo/issues/:number', '/:a/:b/:c',
  '/files/*', '/a/:b(\\d+)', '/doc.:format?', '/doc.:format', '/:any', '/:a/:b', '/gists/',
  '/users/:user/', ['/x', '/gists/:id'], /^\/re\/(\d+)\/?$/i, '/a.b', '/~x', '/v1-:ver', '/a_b',
  '/%20', '/caf%C3%A9', '/A', '/a', '/repos/:owner/:repo/issues', '*', '/gists/:id/:id',
  '/:__proto__', '/x/:constructor', '/:a/repos/:b', '/repos/:owner/starred',
];
const MOUNT_PATHS: RoutePath[] = ['/', '/gists', '/users/:user'];
const SEGMENTS = [
  'gists', 'Gists', 'GISTS', 'starred', 'STARRED', 'public', '1', '42', 'abc', 'ABC', '%41', '%zz',
  '%', '%2F', 'comments', 'users', 'repos', 'issues', 'files', 'a', 'A', 'b', 'doc.json', 'doc',
  're', 'x', 'X', '.', '..', '', 'a%2Fb', 'caf%C3%A9', 'CAF%C3%A9', '%20', 'a.b', '~x', 'v1-2', '\u00e9',
  'a_b', 'A_B', 'a\u007fb', '_', '\u007f', 'reposs', 'repo', '@', '`', '{',
];
const METHODS = ['GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'get'] as const;

interface Entry {
  kind: 'route' | 'use';
  path: RoutePath;
  methods: ReadonlyArray<'get' | 'post' | 'put' | 'all' | 'options'>;
}

const entry: fc.Arbitrary<Entry> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant<'route'>('route'),
      path: fc.constantFrom(...ROUTE_PATHS),
      methods: fc.array(fc.constantFrom<Entry['methods'][number]>('get', 'get', 'post', 'put', 'all', 'options'), { minLength: 1, maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'use'>('use'), path: fc.constantFrom(...MOUNT_PATHS), methods: fc.constant([]) }) },
);

/** Mostly ordinary paths; some without the leading `/` (`*`, `x`, empty), which only the regex can judge. */
const requestPath = fc.tuple(
  fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 5 }),
  fc.constantFrom('', '', '/', '//'),
  fc.constantFrom('/', '/', '/', '/', '/', '', '*'),
).map(([segs, tail, lead]) => lead + segs.join('/') + (segs.length > 0 ? tail : ''));

type Answer = { index: number; params: Record<string, string | undefined> } | { status: unknown } | undefined;

function build(entries: readonly Entry[], opts: { strict: boolean; caseSensitive: boolean }): ReturnType<typeof Router> {
  const router = Router(opts);
  for (const e of entries) {
    if (e.kind === 'use') router.use(e.path, noop);
    else {
      const route = router.route(e.path);
      for (const m of e.methods) route[m](noop);
    }
  }
  return router;
}

/** Express 4: layers in order, the method first, then the regex (which decodes, and may throw). */
function scan(router: ReturnType<typeof Router>, method: string, path: string): Answer {
  const upper = method.toUpperCase();
  for (let index = 0; index < router.stack.length; index++) {
    const layer = router.stack[index]!;
    if (layer.route === undefined || !layer.route.handlesMethod(upper)) continue;
    try {
      const m = layer.match(path);
      if (m !== undefined) return { index, params: m.params };
    } catch (e) {
      return { status: (e as { status?: unknown }).status };
    }
  }
  return undefined;
}

/** The matcher a router builds over its stack (generated search), rebuilt when layers are added. */
const compiledMatchers = new WeakMap<object, { layers: number; matcher: Matcher }>();
function compiledOf(router: ReturnType<typeof Router>): Matcher {
  let entry = compiledMatchers.get(router);
  if (entry === undefined || entry.layers !== router.stack.length) {
    entry = { layers: router.stack.length, matcher: new Matcher(router.stack, { strict: router.strict, sensitive: router.caseSensitive }) };
    compiledMatchers.set(router, entry);
  }
  return entry.matcher;
}

/** The first route answering `method path` by the generated search, with its decoded params. */
function lookup(router: ReturnType<typeof Router>, method: string, path: string): ReturnType<Matcher['first']> {
  return compiledOf(router).first(path, method.toUpperCase());
}

function answer(router: ReturnType<typeof Router>, find: () => ReturnType<Matcher['first']>): Answer {
  try {
    const hit = find();
    if (hit === undefined) return undefined;
    return { index: router.stack.findIndex((l) => l.route === hit.route), params: hit.params };
  } catch (e) {
    return { status: (e as { status?: unknown }).status };
  }
}

/** What the generated search answers and what the trie loop answers. */
const loops = new WeakMap<object, Matcher>();
function both(router: ReturnType<typeof Router>, method: string, path: string): [Answer, Answer] {
  let loop = loops.get(router);
  if (loop === undefined) loops.set(router, (loop = new Matcher(router.stack, { strict: router.strict, sensitive: router.caseSensitive, compile: false })));
  const upper = method.toUpperCase();
  return [answer(router, () => lookup(router, method, path)), answer(router, () => loop.first(path, upper))];
}

describe('Matcher.first against a scan in definition order', () => {
  it('answers the same route and params over random tables', () => {
    const options = fc.record({ strict: fc.boolean(), caseSensitive: fc.boolean() });
    const requests = fc.array(fc.tuple(fc.constantFrom(...METHODS), requestPath), { minLength: 1, maxLength: 12 });
    fc.assert(fc.property(fc.array(entry, { maxLength: 25 }), options, requests, (entries, opts, reqs) => {
      const router = build(entries, opts);
      for (const [method, path] of reqs) {
        const expected = scan(router, method, path);
        const [compiled, loop] = both(router, method, path);
        assert.deepStrictEqual(compiled, expected, `${method} ${JSON.stringify(path)} (generated)`);
        assert.deepStrictEqual(loop, expected, `${method} ${JSON.stringify(path)} (loop)`);
      }
    }), { seed: SEED, numRuns: 3000 });
  });

  it('prefers the earlier route across literal and param branches', () => {
    const paramFirst = Router();
    paramFirst.get('/:a/b', noop);
    paramFirst.get('/x/b', noop);
    assert.equal(lookup(paramFirst, 'GET', '/x/b')?.route, paramFirst.stack[0]!.route);
    assert.deepEqual(lookup(paramFirst, 'GET', '/x/b')?.params, { a: 'x' });

    const literalFirst = Router();
    literalFirst.get('/x/:b', noop);
    literalFirst.get('/:a/b', noop);
    assert.equal(lookup(literalFirst, 'GET', '/x/b')?.route, literalFirst.stack[0]!.route);
    assert.deepEqual(lookup(literalFirst, 'GET', '/x/b')?.params, { b: 'b' });
    // Not static: the walk, not the precomputed map, has to get the order right.
    assert.deepEqual(lookup(literalFirst, 'GET', '/x/y')?.params, { b: 'y' });
    assert.deepEqual(lookup(literalFirst, 'GET', '/y/b')?.params, { a: 'y' });
  });

  it('skips earlier routes that do not answer the method', () => {
    const router = Router();
    router.post('/a/:id', noop);
    router.get('/:x/:id', noop);
    router.get('/a/:id', noop);
    assert.equal(lookup(router, 'GET', '/a/1')?.route, router.stack[1]!.route);
    assert.equal(lookup(router, 'POST', '/a/1')?.route, router.stack[0]!.route);
    assert.equal(lookup(router, 'HEAD', '/a/1')?.route, router.stack[1]!.route, 'HEAD falls back to GET');
    assert.equal(lookup(router, 'PUT', '/a/1'), undefined);
  });

  it('sees methods added to a route after the first lookup', () => {
    const router = Router();
    const route = router.route('/a/:id');
    assert.equal(lookup(router, 'GET', '/a/1'), undefined);
    route.get(noop);
    assert.equal(lookup(router, 'GET', '/a/1')?.route, route);
    assert.equal(lookup(router, 'GET', '/a')?.route, undefined);
  });

  it('folds ASCII case only, and keeps the request case in params', () => {
    const insensitive = Router();
    insensitive.get('/Repos/:owner/a_b', noop);
    assert.deepEqual(lookup(insensitive, 'GET', '/REPOS/Foo/A_B')?.params, { owner: 'Foo' });
    // `_` | 32 is DEL: folding must not make them equal.
    assert.equal(lookup(insensitive, 'GET', '/repos/foo/a\u007fb'), undefined);
    const sensitive = Router({ caseSensitive: true });
    sensitive.get('/Repos/:owner', noop);
    assert.equal(lookup(sensitive, 'GET', '/repos/foo'), undefined);
    assert.deepEqual(lookup(sensitive, 'GET', '/Repos/Foo')?.params, { owner: 'Foo' });
  });

  it('takes a trailing slash unless strict, and never an empty segment', () => {
    for (const strict of [false, true]) {
      const router = Router({ strict });
      router.get('/gists/:id', noop);
      router.get('/', noop);
      assert.equal(lookup(router, 'GET', '/gists/1/') !== undefined, !strict, `strict=${strict}`);
      assert.equal(lookup(router, 'GET', '/gists//'), undefined);
      assert.equal(lookup(router, 'GET', '//'), undefined);
      assert.equal(lookup(router, 'GET', '/')?.route, router.stack[1]!.route);
    }
  });

  it('lets an earlier regex route win over a later indexed one, and not a later one', () => {
    const router = Router();
    router.get('/a/:b(\\d+)', noop);
    router.get('/a/:b', noop);
    router.get('/c/:d', noop);
    router.get(/^\/c\/(\d+)$/, noop);
    assert.equal(lookup(router, 'GET', '/a/1')?.route, router.stack[0]!.route);
    assert.equal(lookup(router, 'GET', '/a/x')?.route, router.stack[1]!.route);
    assert.equal(lookup(router, 'GET', '/c/1')?.route, router.stack[2]!.route);
  });

  it('decodes the winner only: a malformed escape is a 400 there, nothing elsewhere', () => {
    const router = Router();
    router.post('/a/:id', noop);
    router.get('/a/:id', noop);
    assert.throws(() => lookup(router, 'GET', '/a/%zz'), (e: { status?: number }) => e.status === 400);
    assert.deepEqual(lookup(router, 'GET', '/a/caf%C3%A9')?.params, { id: 'caf\u00e9' });
  });

  it('keeps the last value of a repeated name and never sets a prototype', () => {
    const router = Router();
    router.get('/r/:id/:id', noop);
    router.get('/p/:__proto__', noop);
    assert.deepEqual(lookup(router, 'GET', '/r/1/2')?.params, { id: '2' });
    const params = lookup(router, 'GET', '/p/x')?.params;
    assert.equal(Object.getPrototypeOf(params), Object.prototype);
  });

  it('leaves paths without a leading slash to the regex, in lookup and in dispatch', () => {
    for (const strict of [false, true]) {
      const router = Router({ strict });
      router.get('/', noop);
      router.get('/gists', noop);
      router.get('/:a', noop);
      router.use('/', noop);
      router.get('*', noop);
      const matcher = new Matcher(router.stack, { strict, sensitive: false });
      for (const path of ['xgists', 'gists', 'x', '', '*']) {
        const regex = router.stack.flatMap((layer, index) => (layer.match(path) ? [index] : []));
        const indexed = matcher.lookup(path).flatMap((c) => (router.stack[c.index]!.match(path) ? [c.index] : []));
        assert.deepEqual(indexed, regex, `strict=${strict} ${JSON.stringify(path)}`);
        assert.deepStrictEqual(answer(router, () => lookup(router, 'GET', path)), scan(router, 'GET', path), `strict=${strict} ${JSON.stringify(path)}`);
      }
      assert.equal(lookup(router, 'GET', 'xgists')?.route, router.stack[4]!.route);
    }
  });

  it('answers the same when a big table is generated as several functions', () => {
    const table = JSON.parse(readFileSync(new URL('../../bench/github-routes.json', import.meta.url), 'utf8')) as { routes: Array<{ method: string; path: string }> };
    for (const caseSensitive of [false, true]) {
      const router = Router({ caseSensitive });
      for (let copy = 0; copy < 8; copy++) {
        for (const { method, path } of table.routes) router[method.toLowerCase() as 'get'](`/v${copy}${path}`, noop);
      }
      router.get('/:v/:a/:b/:c/:d/:e', noop);
      const paths = table.routes.flatMap(({ path }) => {
        const filled = path.replace(/:\w+/g, 'x1');
        return [`/v3${filled}`, `/V7${filled.toUpperCase()}`, `/v7${filled}/`, `/v8${filled}`, `/v0${filled}/extra`];
      });
      lookup(router, 'GET', '/');
      // White-box: this test is about the split generated code, not the loop it could fall back to.
      assert.equal((compiledOf(router) as unknown as { search: object }).search.constructor.name, 'CompiledSearch');
      for (const method of ['GET', 'POST', 'DELETE']) {
        for (const path of paths) {
          const [compiled, loop] = both(router, method, path);
          const expected = scan(router, method, path);
          assert.deepStrictEqual(compiled, expected, `${method} ${path} (generated)`);
          assert.deepStrictEqual(loop, expected, `${method} ${path} (loop)`);
        }
      }
    }
  });

  it('answers the same on a table too wide to generate code for', () => {
    const router = Router();
    for (let i = 0; i < 3000; i++) router.get(`/r${i}/:id/s${i % 7}/:x`, noop);
    router.get('/:a/:b/:c/:d', noop);
    assert.deepEqual(lookup(router, 'GET', '/r2999/1/s3/2')?.params, { id: '1', x: '2' });
    assert.equal(lookup(router, 'GET', '/r2999/1/s3/2')?.route, router.stack[2999]!.route);
    assert.deepEqual(lookup(router, 'GET', '/r2999/1/s4/2')?.params, { a: 'r2999', b: '1', c: 's4', d: '2' });
  });
});
