/**
 * @module test/router/matcher-differential
 * The compiled index (literal map + segment trie + regex list) must answer exactly what a linear
 * scan of every layer's regex in definition order answers (Express 4's semantics), and roa's
 * Router dispatch must run the same handlers with the same params as Express 4's Router.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { Matcher } from '../../src/router/matcher.js';
import { decodeParam, Layer } from '../../src/router/layer.js';
import { Router } from '../../src/router/router.js';
import type { RoutePath } from '../../src/router/path.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';

const require = createRequire(import.meta.url);
type Next = (err?: unknown) => void;
type Handler = (req: FakeReq, res: unknown, next: Next) => void;
interface ExpressRouter {
  (req: FakeReq, res: unknown, next: Next): void;
  use(...args: unknown[]): void;
  route(path: RoutePath): Record<string, (...h: Handler[]) => unknown>;
}
const express = require('express') as { Router(o: { strict: boolean; caseSensitive: boolean; mergeParams?: boolean }): ExpressRouter };

const SEED = 777;

/** Route paths the index handles (literal, `:param`) mixed with ones it leaves to the regex. */
const ROUTE_PATHS: RoutePath[] = [
  '/', '/gists', '/gists/starred', '/gists/public', '/gists/:id', '/gists/:id/comments',
  '/gists/:gist_id/comments/:comment_id', '/Gists/Starred', '/users/:user', '/users/:user?',
  '/users/:user/repos', '/repos/:owner/:repo', '/repos/:owner/:repo/issues/:number',
  '/files/*', '/a/:b(\\d+)', '/doc.:format?', '/doc.:format', '/:any', '/:a/:b', '/gists/',
  '/users/:user/', ['/x', '/gists/:id'], /^\/re\/(\d+)\/?$/i, '/a.b', '/~x', '/v1-:ver',
  '/%20', '/caf%C3%A9', '/A', '/a', '/repos/:owner/:repo/issues', '*', '/gists/:id/:id',
];
/** Prefixes for `use` middleware (always in the regex list). */
const MOUNT_PATHS: RoutePath[] = ['/', '/gists', '/users/:user', '/GISTS', '/a.b', '/re'];

const SEGMENTS = [
  'gists', 'Gists', 'GISTS', 'starred', 'STARRED', 'public', '1', '42', 'abc', 'ABC', '%41', '%zz',
  '%', '%2F', 'comments', 'users', 'repos', 'issues', 'files', 'a', 'A', 'b', 'doc.json', 'doc',
  'DOC.JSON', 're', 'x', '.', '..', '', 'a%2Fb', 'caf%C3%A9', 'CAF%C3%A9', '%20', 'a.b', '~x', 'v1-2', '\u00e9',
];

interface Entry {
  kind: 'route' | 'use' | 'router';
  path: RoutePath;
  method: 'get' | 'post' | 'all';
}

const entry: fc.Arbitrary<Entry> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant<'route'>('route'), path: fc.constantFrom(...ROUTE_PATHS), method: fc.constantFrom<Entry['method']>('get', 'get', 'post', 'all') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'use'>('use'), path: fc.constantFrom(...MOUNT_PATHS), method: fc.constant<'all'>('all') }) },
);
const table = fc.array(entry, { minLength: 0, maxLength: 25 });

/** A mounted child router (dispatch comparison only): fixed routes, `mergeParams` on or off. */
const mountEntry: fc.Arbitrary<Entry> = fc.record({
  kind: fc.constant<'router'>('router'),
  path: fc.constantFrom(...MOUNT_PATHS),
  method: fc.constantFrom<Entry['method']>('get', 'all', 'post'),
});

const requestPath = fc.tuple(
  fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 5 }),
  fc.constantFrom('', '', '/', '//'),
  fc.constantFrom('none', 'upper', 'lower'),
).map(([segs, tail, caseMode]) => {
  let p = '/' + segs.join('/') + (segs.length > 0 ? tail : '');
  if (caseMode === 'upper') p = p.toUpperCase();
  if (caseMode === 'lower') p = p.toLowerCase();
  return p;
});

const routerOptions = fc.record({ strict: fc.boolean(), caseSensitive: fc.boolean() });

const noop = (): void => {};

/** Builds a roa Router from a table (handlers are never run here). */
function roaRouter(entries: readonly Entry[], opts: { strict: boolean; caseSensitive: boolean }): Layer[] {
  const router = Router(opts);
  for (const e of entries) {
    if (e.kind === 'use') router.use(e.path, noop);
    else router[e.method](e.path, noop);
  }
  return router.stack;
}

type Hit = { index: number; path: string; params: Record<string, string | undefined> } | { index: number; status: unknown };

function fromLayer(layer: Layer, index: number, path: string): Hit | undefined {
  try {
    const m = layer.match(path);
    return m === undefined ? undefined : { index, path: m.path, params: { ...m.params } };
  } catch (e) {
    return { index, status: (e as { status?: unknown }).status };
  }
}

/** What the index answers, resolved the way Router.handle resolves candidates. */
function viaMatcher(layers: readonly Layer[], matcher: Matcher, path: string): Hit[] {
  const hits: Hit[] = [];
  for (const c of matcher.lookup(path)) {
    if (c.names === undefined) {
      const hit = fromLayer(layers[c.index]!, c.index, path);
      if (hit) hits.push(hit);
      continue;
    }
    try {
      const params: Record<string, string | undefined> = {};
      c.names.forEach((name, i) => {
        params[name] = decodeParam(c.values![i]);
      });
      hits.push({ index: c.index, path, params });
    } catch (e) {
      hits.push({ index: c.index, status: (e as { status?: unknown }).status });
    }
  }
  return hits;
}

/** Express 4's semantics: every layer's regex, in definition order. */
function linearScan(layers: readonly Layer[], path: string): Hit[] {
  const hits: Hit[] = [];
  layers.forEach((layer, index) => {
    const hit = fromLayer(layer, index, path);
    if (hit) hits.push(hit);
  });
  return hits;
}

describe('Matcher against a linear scan', () => {
  it('yields the same layers, in definition order, with the same params', () => {
    fc.assert(fc.property(table, routerOptions, fc.array(requestPath, { minLength: 1, maxLength: 12 }), (entries, opts, paths) => {
      const layers = roaRouter(entries, opts);
      const matcher = new Matcher(layers, { strict: opts.strict, sensitive: opts.caseSensitive });
      for (const path of paths) {
        assert.deepEqual(viaMatcher(layers, matcher, path), linearScan(layers, path), `path ${JSON.stringify(path)}`);
      }
    }), { seed: SEED, numRuns: 3000 });
  });

  it('keeps the original case of param values on a case-insensitive router', () => {
    const layers = roaRouter([{ kind: 'route', path: '/gists/starred', method: 'get' }, { kind: 'route', path: '/gists/:id', method: 'get' }], { strict: false, caseSensitive: false });
    const matcher = new Matcher(layers, { strict: false, sensitive: false });
    assert.deepEqual(viaMatcher(layers, matcher, '/GISTS/Starred'), [
      { index: 0, path: '/GISTS/Starred', params: {} },
      { index: 1, path: '/GISTS/Starred', params: { id: 'Starred' } },
    ]);
  });

  it('lists a static route and an overlapping param route in definition order', () => {
    const layers = roaRouter([{ kind: 'route', path: '/gists/:id', method: 'get' }, { kind: 'route', path: '/gists/starred', method: 'get' }], { strict: false, caseSensitive: false });
    const matcher = new Matcher(layers, { strict: false, sensitive: false });
    assert.deepEqual(matcher.lookup('/gists/starred').map((c) => c.index), [0, 1]);
  });

  it('matches a trailing slash only when not strict', () => {
    for (const strict of [false, true]) {
      const layers = roaRouter([{ kind: 'route', path: '/gists/:id', method: 'get' }], { strict, caseSensitive: false });
      const matcher = new Matcher(layers, { strict, sensitive: false });
      assert.equal(viaMatcher(layers, matcher, '/gists/1/').length, strict ? 0 : 1, `strict=${strict}`);
    }
  });

  it('answers the same for a repeated lookup of a precomputed literal path', () => {
    const layers = roaRouter([{ kind: 'route', path: '/gists/starred', method: 'get' }], { strict: false, caseSensitive: false });
    const matcher = new Matcher(layers, { strict: false, sensitive: false });
    assert.deepEqual(matcher.lookup('/gists/starred'), matcher.lookup('/gists/starred'));
    assert.equal(viaMatcher(layers, matcher, '/Gists/Starred').length, 1);
  });
});

// ---------------------------------------------------------------------------------------------
// Whole dispatch: roa Router vs Express 4 Router, in process, with plain request objects.

interface FakeReq {
  method: string;
  url: string;
  params?: Record<string, unknown>;
  baseUrl?: string;
  originalUrl?: string;
}

interface Step { i: number; params: Record<string, unknown>; url: string; baseUrl: string | undefined }

/**
 * Every handler records what it saw and calls `next`; some call `next('route')`. Mounted
 * middleware are recorded too, so `req.url`/`req.baseUrl` stripping is compared.
 */
function define(
  router: ExpressRouter | ReturnType<typeof Router>,
  entries: readonly Entry[],
  trail: Step[],
  skips: ReadonlySet<number>,
  makeRouter: (o: { strict: boolean; caseSensitive: boolean; mergeParams: boolean }) => ExpressRouter | ReturnType<typeof Router>,
  opts: { strict: boolean; caseSensitive: boolean },
): void {
  entries.forEach((e, i) => {
    if (e.kind === 'router') {
      // Child routes: `next('router')` from the first leaves the child when i is in `skips`.
      const child = makeRouter({ ...opts, mergeParams: i % 2 === 0 });
      const rec = (tag: number, arg?: string): Handler => (req, _res, next) => {
        trail.push({ i: tag, params: { ...req.params }, url: req.url, baseUrl: req.baseUrl });
        next(arg);
      };
      const c = child as unknown as { route(p: string): Record<string, (...h: Handler[]) => unknown> };
      c.route('/:id')[e.method]!(rec(i + 2000, skips.has(i) ? 'router' : undefined));
      c.route('/starred')[e.method]!(rec(i + 3000));
      c.route('/')[e.method]!(rec(i + 4000));
      (router.use as (...a: unknown[]) => void)(e.path, child);
      return;
    }
    const h: Handler = (req, _res, next) => {
      trail.push({ i, params: { ...req.params }, url: req.url, baseUrl: req.baseUrl });
      next(skips.has(i) ? 'route' : undefined);
    };
    const second: Handler = (req, _res, next) => {
      trail.push({ i: i + 1000, params: { ...req.params }, url: req.url, baseUrl: req.baseUrl });
      next();
    };
    if (e.kind === 'use') (router.use as (...a: unknown[]) => void)(e.path, h);
    else (router.route(e.path) as unknown as Record<string, (...h: Handler[]) => unknown>)[e.method]!(h, second);
  });
}

function run(router: (req: FakeReq, res: unknown, next: Next) => void, req: FakeReq): Promise<{ status: unknown; error: boolean }> {
  return new Promise((resolve) => {
    router(req, {}, (err?: unknown) => resolve({ error: err !== undefined && err !== null, status: (err as { status?: unknown } | undefined)?.status }));
  });
}

/**
 * Builds the same table on an Express 4 Router and on roa's, dispatches `method url` through both,
 * asserts the same handlers ran with the same params, url and baseUrl and the request left the same
 * way; returns roa's trail.
 */
async function dispatchBoth(
  entries: readonly Entry[], opts: { strict: boolean; caseSensitive: boolean }, method: string, url: string, skipList: readonly number[],
): Promise<Step[]> {
  const skips = new Set(skipList);
  const theirs: Step[] = [];
  const ours: Step[] = [];
  const er = express.Router(opts);
  define(er, entries, theirs, skips, (o) => express.Router(o), opts);
  const rr = Router(opts);
  define(rr, entries, ours, skips, (o) => Router(o), opts);
  const want = await run(er, { method, url });
  const got = await run(rr as unknown as (req: FakeReq, res: unknown, next: Next) => void, { method, url });
  assert.deepEqual(ours, theirs, `${method} ${url}`);
  assert.deepEqual(got, want, `${method} ${url}`);
  return ours;
}

// Patterns with several params in one segment split differently in express@4.22 (it bundles
// path-to-regexp 0.1.13; see path-differential), so they stay out of this comparison.
const dispatchEntry = entry.filter((e) => e.path !== '/v1-:ver');

describe('Router dispatch against Express 4 Router', () => {
  it('runs the same handlers with the same params, url and baseUrl', async () => {
    let childRuns = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(fc.oneof({ weight: 4, arbitrary: dispatchEntry }, { weight: 2, arbitrary: mountEntry }), { minLength: 0, maxLength: 20 }),
      routerOptions,
      fc.constantFrom('GET', 'POST', 'HEAD', 'PUT'),
      requestPath,
      fc.array(fc.nat(19), { maxLength: 4 }),
      async (entries, opts, method, path, skipList) => {
        const ours = await dispatchBoth(entries, opts, method, path + '?q=1', skipList);
        if (ours.some((s) => s.i >= 2000)) childRuns++;
      },
    ), { seed: SEED + 1, numRuns: 1500 });
    // Mounted child routers must actually have run in a fair share of cases.
    assert.ok(childRuns > 40, `child routers ran in only ${childRuns} cases`);
  });

  it('agrees on tables of indexed routes only, where dispatch starts from the first-route search', async () => {
    // No middleware and no regex-only route: the router starts from one candidate and looks up
    // the rest only when a handler passes (next() or next('route')).
    const indexed = ROUTE_PATHS.filter((p) => new Layer(p, { sensitive: false, strict: false, end: true }, noop).simple !== undefined);
    const indexedEntry = fc.record({
      kind: fc.constant<'route'>('route'),
      path: fc.constantFrom(...indexed),
      method: fc.constantFrom<Entry['method']>('get', 'get', 'post', 'all'),
    });
    let passedOn = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(indexedEntry, { minLength: 1, maxLength: 20 }),
      routerOptions,
      fc.constantFrom('GET', 'POST', 'HEAD'),
      // Random paths, and paths of the table's own routes (which several routes often match).
      fc.oneof(requestPath, fc.constantFrom(...indexed.map((p) => String(p).replace(/:\w+/g, 'abc'))), fc.constantFrom(...indexed.map((p) => String(p).replace(/:\w+/g, '42')))),
      fc.array(fc.nat(19), { maxLength: 6 }),
      async (entries, opts, method, path, skipList) => {
        const ours = await dispatchBoth(entries, opts, method, path, skipList);
        if (ours.filter((s) => s.i < 1000).length > 1) passedOn++;
      },
    ), { seed: SEED + 2, numRuns: 1500 });
    // Requests that went on to a second route (the lookup after the first-route start) must be common.
    assert.ok(passedOn > 30, `only ${passedOn} requests reached a second route`);
  });

  it('restores req.url and req.baseUrl after a mounted middleware', async () => {
    const rr = Router();
    const seen: string[] = [];
    rr.use('/gists', (req: Request, _res: Response, next: Next) => {
      seen.push(`${req.baseUrl}|${req.url}`);
      next();
    });
    rr.get('/gists/:id', (req: Request, _res: Response, next: Next) => {
      seen.push(`${req.baseUrl}|${req.url}`);
      next();
    });
    await run(rr as unknown as (req: FakeReq, res: unknown, next: Next) => void, { method: 'GET', url: '/gists/1?x=y' });
    assert.deepEqual(seen, ['/gists|/1?x=y', '|/gists/1?x=y']);
  });
});
