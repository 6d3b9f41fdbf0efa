/**
 * @module test/router/express-differential
 * The same app definitions registered on express@4 and on roa, the same requests fired at both
 * over HTTP: statuses, `Allow`, and the JSON the handlers produce must agree. Default 404/500
 * bodies differ by design (roa answers RFC 9457 problem+json), so only their statuses count.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import express from 'express';
import fc from 'fast-check';
import { createApp } from '../../src/app.js';
import { methodOverride } from '../../src/middleware/method-override.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { Router } from '../../src/router/router.js';
import { request, withServer, type Servable, type SimpleResponse } from '../helpers/server.js';

// Deliberate 5xx answers below: keep roa's final handler from logging them.
process.env.NODE_ENV = 'test';

type Next = (err?: unknown) => void;
interface Req {
  params: Record<string, unknown>;
  url: string;
  body?: unknown;
  baseUrl: string;
  path: string;
  originalUrl: string;
  method: string;
  query: unknown;
}
interface Res {
  locals: Record<string, unknown>;
  status(code: number): Res;
  json(body: unknown): unknown;
  set(name: string, value: string): Res;
}
type Handler = (req: Req, res: Res, next: Next) => unknown;
type ErrorHandler = (err: unknown, req: Req, res: Res, next: Next) => unknown;
type Path = string | RegExp | Array<string | RegExp>;
/** The part of the Express/roa surface the scenarios use. */
interface AnyRoute {
  get(...h: Handler[]): AnyRoute;
  put(...h: Handler[]): AnyRoute;
}
interface AnyRouter {
  use(path: Path, ...h: Array<Handler | AnyRouter>): AnyRouter;
  use(...h: Handler[]): AnyRouter;
  route(path: Path): AnyRoute;
  get(path: Path, ...h: Handler[]): AnyRouter;
  post(path: Path, ...h: Handler[]): AnyRouter;
  put(path: Path, ...h: Handler[]): AnyRouter;
  delete(path: Path, ...h: Handler[]): AnyRouter;
  all(path: Path, ...h: Handler[]): AnyRouter;
  head(path: Path, ...h: Handler[]): AnyRouter;
  options(path: Path, ...h: Handler[]): AnyRouter;
}
interface Kit {
  app: AnyRouter;
  router(opts?: { mergeParams?: boolean; strict?: boolean; caseSensitive?: boolean }): AnyRouter;
}

/** Records a step of the request's way through the stack. */
const mark = (tag: string, arg?: string): Handler => (_req, res, next) => {
  ((res.locals.trail ??= []) as string[]).push(tag);
  next(arg);
};
/** Answers with what the handler saw. */
const reply = (tag: string): Handler => (req, res) => {
  res.json({ tag, params: req.params, baseUrl: req.baseUrl, path: req.path, originalUrl: req.originalUrl, trail: res.locals.trail ?? [] });
};

interface Scenario {
  name: string;
  options?: { strict?: boolean; caseSensitive?: boolean };
  define(kit: Kit): void;
  requests: Array<[method: string, path: string]>;
}

/** `name=0&name=1&…` with `n` values. */
function repeated(name: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `${name}=${i}`).join('&');
}

const SCENARIOS: Scenario[] = [
  {
    name: 'params, optional params, formats, stars, arrays and RegExps',
    define({ app }) {
      app.get('/users/:id?', reply('user'));
      app.get('/docs/:name.:format?', reply('doc'));
      app.get('/files/*', reply('files'));
      app.get('/num/:n(\\d+)', reply('num'));
      app.get(['/a', '/b/:x', /^\/re\/(\w+)\/(\d+)$/], reply('multi'));
      app.get(/^\/commits\/(\w+)(?:\.\.(\w+))?$/, reply('regexp'));
      app.get('/group/(inner)?', reply('group'));
      app.get('/named/:a/:b?/end', reply('named'));
      app.get('*', reply('star'));
    },
    requests: [
      ['GET', '/users'], ['GET', '/users/'], ['GET', '/users/42'], ['GET', '/users/42/'], ['GET', '/USERS/Ab%20c'],
      ['GET', '/docs/readme'], ['GET', '/docs/readme.md'], ['GET', '/docs/a.b.c'], ['GET', '/files/a/b/c.txt'],
      ['GET', '/files/'], ['GET', '/num/12'], ['GET', '/num/x'], ['GET', '/a'], ['GET', '/b/zz'], ['GET', '/re/abc/12'],
      ['GET', '/commits/abc'], ['GET', '/commits/abc..def'], ['GET', '/group'], ['GET', '/group/inner'],
      ['GET', '/named/1/end'], ['GET', '/named/1/2/end'], ['GET', '/whatever/%41?q=1'], ['GET', '/users/%zz'],
      ['GET', '/files/%E0%A4%A'], ['GET', '/users/caf%C3%A9'],
    ],
  },
  {
    name: 'all, method routes, chained handlers and next("route")',
    define({ app }) {
      app.all('/item/:id', mark('all'));
      app.get('/item/:id', mark('g1', 'route'), mark('never'));
      app.get('/item/:id', mark('g2'), reply('item'));
      app.post('/item/:id', reply('posted'));
      app.route('/r').get(reply('r-get')).put(reply('r-put'));
      app.put('/only-put', reply('put'));
      app.delete('/item/:id', mark('del'), (_req, _res, next) => next());
    },
    requests: [
      ['GET', '/item/1'], ['POST', '/item/1'], ['PUT', '/item/1'], ['DELETE', '/item/1'], ['HEAD', '/item/1'],
      ['GET', '/r'], ['PUT', '/r'], ['POST', '/r'], ['OPTIONS', '/r'], ['OPTIONS', '/item/1'], ['OPTIONS', '/only-put'],
      ['OPTIONS', '/nothing'], ['HEAD', '/r'], ['HEAD', '/only-put'],
    ],
  },
  {
    name: 'mounted routers, mergeParams, next("router") and baseUrl',
    define({ app, router }) {
      const merged = router({ mergeParams: true });
      merged.get('/', reply('merged-root'));
      merged.get('/:repo', reply('merged'));
      const plain = router();
      plain.get('/:repo', reply('plain'));
      const leaving = router();
      leaving.use(mark('leaving-mw'));
      leaving.get('/x', mark('leave', 'router'), reply('never'));
      leaving.get('/y', reply('stay'));
      const nested = router({ mergeParams: true });
      const inner = router({ mergeParams: true });
      inner.get('/:c', reply('inner'));
      nested.use('/:b', inner);
      app.use('/m/:owner', merged);
      app.use('/p/:owner', plain);
      app.use('/leave', leaving);
      app.get('/leave/x', reply('after-router'));
      app.use('/n/:a', nested);
      app.use('/mw', (req, res) => res.json({ baseUrl: req.baseUrl, path: req.path, originalUrl: req.originalUrl }));
    },
    requests: [
      ['GET', '/m/alice/proj'], ['GET', '/m/alice'], ['GET', '/m/alice/'], ['GET', '/p/alice/proj'], ['GET', '/leave/x'],
      ['GET', '/leave/y'], ['GET', '/n/1/2/3'], ['GET', '/mw'], ['GET', '/mw/'], ['GET', '/mw/deep/er?x=1'],
      ['GET', '/MW/Deep'], ['GET', '/mwx'], ['GET', '/m/a%2Fb/c'], ['OPTIONS', '/m/alice/proj'],
    ],
  },
  {
    name: 'error handler chain and status-carrying errors',
    define({ app }) {
      app.get('/throw', () => {
        throw Object.assign(new Error('boom'), { status: 418 });
      });
      app.get('/next-err', (_req, _res, next) => next(Object.assign(new Error('x'), { statusCode: 409 })));
      app.get('/plain-500', () => {
        throw new Error('plain');
      });
      app.get('/weird-status', () => {
        throw Object.assign(new Error('w'), { status: 200 });
      });
      app.get('/unclaimed', (_req, _res, next) => next(Object.assign(new Error('gone'), { status: 410 })));
      const passOn: ErrorHandler = (err, _req, res, next) => {
        ((res.locals.trail ??= []) as string[]).push('pass-on');
        next(err);
      };
      const skipped: Handler = mark('skipped-normal');
      const render: ErrorHandler = (err, req, res, next) => {
        const e = err as { status?: number; statusCode?: number; message: string };
        if (req.path === '/unclaimed') return next(err);
        res.status(e.status ?? e.statusCode ?? 500).json({ message: e.message, trail: res.locals.trail });
      };
      app.use(passOn as unknown as Handler);
      app.use(skipped);
      app.use(render as unknown as Handler);
    },
    // Rejected promises are left out: Express 4 never sees them (router.test covers roa's answer).
    requests: [['GET', '/throw'], ['GET', '/next-err'], ['GET', '/plain-500'], ['GET', '/unclaimed'], ['GET', '/nope'], ['GET', '/weird-status']],
  },
  {
    name: 'unclaimed errors reach the default handler with their status',
    define({ app }) {
      app.get('/418', () => {
        throw Object.assign(new Error('teapot'), { status: 418 });
      });
      app.get('/status-code', (_req, _res, next) => next(Object.assign(new Error('x'), { statusCode: 503 })));
      app.get('/out-of-range', (_req, _res, next) => next(Object.assign(new Error('x'), { status: 302 })));
      app.get('/string', (_req, _res, next) => next('a string'));
      app.get('/bad/:id', reply('bad'));
    },
    requests: [['GET', '/418'], ['GET', '/status-code'], ['GET', '/out-of-range'], ['GET', '/string'], ['GET', '/bad/%'], ['HEAD', '/bad/%zz'], ['GET', '/none']],
  },
  {
    name: 'strict routing',
    options: { strict: true },
    define({ app, router }) {
      app.get('/s', reply('no-slash'));
      app.get('/t/', reply('slash'));
      const r = router({ strict: true });
      r.get('/', reply('mounted-root'));
      r.get('/x/', reply('mounted-x'));
      app.use('/mount', r);
    },
    requests: [['GET', '/s'], ['GET', '/s/'], ['GET', '/t'], ['GET', '/t/'], ['GET', '/mount'], ['GET', '/mount/'], ['GET', '/mount/x'], ['GET', '/mount/x/']],
  },
  {
    name: 'case-sensitive routing',
    options: { caseSensitive: true },
    define({ app }) {
      app.get('/Users/:id', reply('upper'));
      app.get('/users/:id', reply('lower'));
      app.use('/Mw', (req, res) => res.json({ baseUrl: req.baseUrl, path: req.path }));
    },
    requests: [['GET', '/Users/A'], ['GET', '/users/A'], ['GET', '/USERS/A'], ['GET', '/Mw/x'], ['GET', '/mw/x']],
  },
  {
    name: 'overlapping static and param routes in definition order',
    define({ app }) {
      app.get('/gists/:id', mark('param'), (req, _res, next) => next(req.params.id === 'starred' ? undefined : 'route'));
      app.get('/gists/starred', reply('starred'));
      app.get('/gists/:id', reply('gist'));
      app.get('/', reply('root'));
    },
    requests: [['GET', '/gists/starred'], ['GET', '/gists/STARRED'], ['GET', '/Gists/1'], ['GET', '/gists/1/'], ['GET', '/'], ['GET', '//'], ['GET', '/gists//']],
  },
  {
    name: 'url rewriting middleware, array and RegExp mounts, absolute-form targets',
    define({ app, router }) {
      app.use('/alias', (req, _res, next) => {
        (req as unknown as { url: string }).url = '/gists/starred' + (req as unknown as { url: string }).url.slice(1);
        next();
      });
      app.use((req, _res, next) => {
        const r = req as unknown as { url: string };
        if (r.url.startsWith('/old/')) r.url = '/gists/' + r.url.slice(5);
        next();
      });
      app.get('/gists/starred', reply('starred'));
      app.get('/gists/:id', reply('gist'));
      app.use(['/arr1', '/arr2/:x'], (req, res) => res.json({ which: 'array', baseUrl: req.baseUrl, path: req.path, params: req.params }));
      app.use(/^\/rx\/(\d+)/, (req, res) => res.json({ which: 'regexp', baseUrl: req.baseUrl, path: req.path, params: req.params }));
      const inner = router();
      inner.use((req, _res, next) => {
        const r = req as unknown as { url: string };
        if (r.url === '/moved') r.url = '/target';
        next();
      });
      inner.get('/target', reply('inner-target'));
      app.use('/inner/', inner);
      app.use('/dot', (req, res) => res.json({ which: 'dot', baseUrl: req.baseUrl, path: req.path }));
    },
    requests: [
      ['GET', '/old/1'], ['GET', '/old/starred'], ['GET', '/alias/x'], ['GET', '/alias'], ['GET', '/arr1/q'], ['GET', '/arr2/7/z'],
      ['GET', '/rx/12/rest'], ['GET', '/rx/a'], ['GET', '/inner/moved'], ['GET', '/inner/target'], ['GET', '/inner'],
      ['GET', '/dot.json'], ['GET', '/dotty'], ['GET', 'http://example.com/gists/5?x=1'], ['GET', 'http://example.com/dot/a'],
    ],
  },
  {
    name: 'route-level error handlers, errors in mounted routers, long synchronous chains',
    define({ app, router }) {
      const fail: Handler = () => {
        throw Object.assign(new Error('route-level'), { status: 422 });
      };
      const catchIt: ErrorHandler = (err, _req, res, _next) => {
        res.status(299).json({ caught: (err as Error).message });
      };
      app.get('/route-err', fail, catchIt as unknown as Handler);
      // Three parameters: not an error handler, so the error passes it by.
      app.get('/route-err-3', fail, ((err: unknown, _req: Req, res: Res) => res.status(297).json({ wrong: String(err) })) as unknown as Handler);
      const child = router();
      child.get('/boom', fail);
      app.use('/child', child);
      const many: Handler[] = [];
      for (let i = 0; i < 300; i++) many.push(mark(String(i % 3)));
      app.get('/long', ...many, reply('long'));
      for (let i = 0; i < 150; i++) app.use(mark('u'));
      app.get('/after-many', (_req, res) => res.json({ n: (res.locals.trail as string[]).length }));
      const parent: ErrorHandler = (err, _req, res) => {
        res.status(298).json({ parent: (err as Error).message });
      };
      // Four parameters make it an error handler in both frameworks.
      app.use(((err: unknown, req: Req, res: Res, next: Next) => parent(err, req, res, next)) as unknown as Handler);
    },
    requests: [['GET', '/route-err'], ['GET', '/route-err-3'], ['GET', '/child/boom'], ['GET', '/long'], ['GET', '/after-many'], ['HEAD', '/after-many']],
  },
  {
    name: 'explicit HEAD and OPTIONS handlers, methods on all()',
    define({ app }) {
      app.head('/h', (_req, res) => {
        res.set('X-Head', 'explicit');
        res.status(204).json({});
      });
      app.get('/h', reply('h-get'));
      app.options('/o', (_req, res) => res.status(200).json({ custom: true }));
      app.get('/o', reply('o'));
      app.all('/any', reply('any'));
      app.get('/g', reply('g'));
      app.post('/g', reply('g-post'));
      app.get('/g/:x', reply('gx'));
    },
    requests: [['HEAD', '/h'], ['GET', '/h'], ['OPTIONS', '/h'], ['OPTIONS', '/o'], ['OPTIONS', '/any'], ['DELETE', '/any'], ['OPTIONS', '/g'], ['OPTIONS', '/g/1'], ['PATCH', '/g']],
  },
  {
    name: 'positional params of mergeParams children renumbered after the parent\'s',
    define({ app, router }) {
      const rx = router({ mergeParams: true });
      rx.get(/^\/(\w+)$/, reply('rx-child'));
      rx.get('/named/:n', reply('rx-named'));
      rx.get('*', reply('rx-star'));
      app.use(/^\/rx\/(\d+)/, rx);
      const star = router({ mergeParams: true });
      star.get('/*/:x', reply('star-child'));
      app.use('/files/*', (req, _res, next) => {
        // Express 4 (path-to-regexp 0.1) keeps a mount's `*` as param 0 of the mount's params.
        ((_res.locals.trail ??= []) as string[]).push(JSON.stringify(req.params));
        next();
      });
      app.use('/s/:k', star);
      const two = router({ mergeParams: true });
      two.get(/^\/(\w)(\w)$/, reply('two'));
      app.use(/^\/two\/(\d)(\d)/, two);
      const plain = router();
      plain.get('*', reply('plain-star'));
      app.use(/^\/plain\/(\d+)/, plain);
    },
    requests: [
      ['GET', '/rx/12/abc'], ['GET', '/rx/12/named/q'], ['GET', '/rx/12/a/b/c'], ['GET', '/s/k1/a/b/c'], ['GET', '/files/a/b'],
      ['GET', '/two/12/xy'], ['GET', '/plain/5/z/y'],
    ],
  },
  {
    name: 'repeated and indexed query values (qs array limits)',
    define({ app }) {
      app.get('/q', (req, res) => res.json(req.query));
    },
    requests: [
      ['GET', `/q?${repeated('ids', 21)}`], ['GET', `/q?${repeated('ids', 25)}`], ['GET', `/q?${repeated('ids', 150)}`], ['GET', `/q?${repeated('ids', 999)}`], ['GET', `/q?${repeated('ids', 1000)}`],
      ['GET', '/q?a[21]=x&a[0]=y'], ['GET', '/q?a[999]=x'], ['GET', '/q?a[1000]=x'], ['GET', '/q?a[1001]=x&a[2]=y'],
      ['GET', `/q?${Array.from({ length: 25 }, (_, i) => `b[]=${i}`).join('&')}`], ['GET', '/q?c=1&c[5]=2'],
    ],
  },
];

/** Once divergent (roa followed path-to-regexp 0.1.12; express@4.22 bundles 0.1.13), now equal. */
const FORMERLY_DIVERGENT: Scenario[] = [
  {
    name: 'three params in one segment split as path-to-regexp 0.1.13 does',
    define({ app }) {
      app.get('/:a-:b-:c', reply('three'));
    },
    requests: [['GET', '/1-2-3-4']],
  },
];

function expressKit(options: Scenario['options'] = {}): { kit: Kit; app: Servable } {
  const app = express();
  // 'test' keeps finalhandler from logging every error to stderr.
  app.set('env', 'test');
  if (options.strict) app.set('strict routing', true);
  if (options.caseSensitive) app.set('case sensitive routing', true);
  const kit: Kit = { app: app as unknown as AnyRouter, router: (o) => express.Router(o) as unknown as AnyRouter };
  return { kit, app };
}

function roaKit(options: Scenario['options'] = {}): { kit: Kit; app: Servable } {
  const app = createApp({ ...options, env: 'test' });
  const kit: Kit = { app: app as unknown as AnyRouter, router: (o) => Router(o) as unknown as AnyRouter };
  return { kit, app };
}

interface Observed {
  status: number;
  allow: string | undefined;
  body: unknown;
  contentLength?: string;
}

function observe(res: SimpleResponse, method: string): Observed {
  const type = String(res.headers['content-type'] ?? '');
  // Handler-produced JSON is compared; default 404/500 pages are not (different by design).
  const body = type.startsWith('application/json') && method !== 'HEAD' ? JSON.parse(res.text) as unknown : undefined;
  const out: Observed = { status: res.status, allow: res.headers.allow, body };
  if (method === 'HEAD' && res.status < 400) out.contentLength = res.headers['content-length'];
  return out;
}

async function fire(app: Servable, requests: Scenario['requests']): Promise<Observed[]> {
  return withServer(app, async (base) => {
    const out: Observed[] = [];
    for (const [method, path] of requests) out.push(observe(await request(base, method, path), method));
    return out;
  });
}

describe('roa against express@4 over HTTP', () => {
  for (const scenario of SCENARIOS) {
    it(`answers like Express: ${scenario.name}`, async () => {
      const theirs = expressKit(scenario.options);
      const ours = roaKit(scenario.options);
      scenario.define(theirs.kit);
      scenario.define(ours.kit);
      const want = await fire(theirs.app, scenario.requests);
      const got = await fire(ours.app, scenario.requests);
      scenario.requests.forEach(([method, path], i) => {
        assert.deepEqual(got[i], want[i], `${method} ${path}`);
      });
    });
  }

  for (const scenario of FORMERLY_DIVERGENT) {
    it(`answers like Express: ${scenario.name}`, async () => {
      const theirs = expressKit(scenario.options);
      const ours = roaKit(scenario.options);
      scenario.define(theirs.kit);
      scenario.define(ours.kit);
      assert.deepEqual(await fire(ours.app, scenario.requests), await fire(theirs.app, scenario.requests));
    });
  }
});

/**
 * Layers that change `req.method` or `req.url` mid-dispatch (methodOverride, rewrites), at app
 * level and in mounted routers, among routes defined in random order: Express 4 routes the changed
 * request from the current position on, and so must roa (issue 24).
 */
describe('roa against express@4 when layers change req.method and req.url mid-dispatch', () => {
  type Method = 'get' | 'post' | 'put' | 'delete' | 'patch' | 'all';
  type Spec =
    | { kind: 'route'; path: Path; method: Method; change?: Change }
    | { kind: 'change'; mount: string | undefined; change: Change }
    | { kind: 'router'; mount: string; mergeParams: boolean; entries: Spec[] };
  type Change = { from: string | undefined; method?: string; url?: string };

  const ROUTE_PATHS: Path[] = ['/user/:id', '/user/9', '/user/:id/edit', '/x', '/:a/:b', '/user/:id?', /^\/re\/(\d+)$/, '*', '/'];
  const MOUNTS = ['/', '/user', '/user/:id', '/re'];
  // Not HEAD: Express then answers a GET with a Content-Length and no body, which breaks framing.
  const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
  const URLS = ['/user/9', '/user/7/edit', '/x', '/x?y=1', '/re/5', '/', '/user', '/9', '/edit'];

  const from = fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'OPTIONS'), { nil: undefined });
  const method = fc.constantFrom(...METHODS);
  const url = fc.constantFrom(...URLS);
  // Mostly one change at a time: a URL change makes any router look its layers up again, which
  // would hide a method change made with it.
  const change: fc.Arbitrary<Change> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ from, method }) },
    { weight: 2, arbitrary: fc.record({ from, url }) },
    { weight: 1, arbitrary: fc.record({ from, method, url }) },
  );
  const route: fc.Arbitrary<Spec> = fc.record({
    kind: fc.constant('route' as const),
    // Param routes weigh more: the index narrows those to the request's method.
    path: fc.oneof(fc.constantFrom(...ROUTE_PATHS), fc.constantFrom<Path>('/user/:id', '/:a/:b', '/user/:id/edit')),
    method: fc.constantFrom<Method>('get', 'post', 'put', 'put', 'delete', 'patch', 'all'),
    change: fc.option(change, { nil: undefined, freq: 4 }),
  });
  const changer: fc.Arbitrary<Spec> = fc.record({
    kind: fc.constant('change' as const),
    mount: fc.option(fc.constantFrom(...MOUNTS), { nil: undefined }),
    change,
  });
  const flat = fc.oneof({ weight: 3, arbitrary: route }, { weight: 2, arbitrary: changer });
  const mounted: fc.Arbitrary<Spec> = fc.record({
    kind: fc.constant('router' as const),
    mount: fc.constantFrom(...MOUNTS),
    mergeParams: fc.boolean(),
    entries: fc.array(flat, { maxLength: 6 }),
  });
  const table = fc.array(fc.oneof({ weight: 4, arbitrary: flat }, { weight: 1, arbitrary: mounted }), { minLength: 1, maxLength: 12 });
  const requests = fc.array(fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'OPTIONS', 'HEAD'), fc.constantFrom(...URLS, '/user/9/edit', '/re/x')), { minLength: 1, maxLength: 4 });

  /** Records the step, then applies the change when the request has the `from` method. */
  const step = (tag: string, c: Change | undefined): Handler => (req, res, next) => {
    ((res.locals.trail ??= []) as string[]).push(`${tag} ${req.method} ${req.url} ${req.baseUrl} ${JSON.stringify(req.params)}`);
    if (c !== undefined && (c.from === undefined || req.method === c.from)) {
      if (c.method !== undefined) req.method = c.method;
      if (c.url !== undefined) req.url = c.url;
    }
    next();
  };

  function build(kit: Kit, target: AnyRouter, specs: readonly Spec[], prefix: string): void {
    specs.forEach((s, i) => {
      const tag = `${prefix}${i}`;
      if (s.kind === 'route') (target as unknown as Record<Method, (p: Path, ...h: Handler[]) => AnyRouter>)[s.method].call(target, s.path, step(tag, s.change));
      else if (s.kind === 'change') {
        if (s.mount === undefined) target.use(step(tag, s.change));
        else target.use(s.mount, step(tag, s.change));
      } else {
        const child = kit.router({ mergeParams: s.mergeParams });
        build(kit, child, s.entries, `${tag}.`);
        target.use(s.mount, child);
      }
    });
  }

  const respond: Handler = (req, res) => {
    res.json({ method: req.method, url: req.url, params: req.params, trail: res.locals.trail ?? [] });
  };

  it('runs the same layers with the same method, url and params (random tables)', async () => {
    let changed = 0;
    await fc.assert(fc.asyncProperty(table, requests, fc.boolean(), async (specs, reqs, answerAtEnd) => {
      const theirs = expressKit();
      const ours = roaKit();
      for (const { kit } of [theirs, ours]) {
        build(kit, kit.app, specs, '');
        if (answerAtEnd) kit.app.use(respond);
      }
      const want = await fire(theirs.app, reqs);
      const got = await fire(ours.app, reqs);
      reqs.forEach(([method, path], i) => {
        assert.deepEqual(got[i], want[i], `${method} ${path}`);
        const body = want[i]!.body as { method?: string; url?: string } | undefined;
        if (body?.method !== undefined && (body.method !== method || body.url !== path)) changed++;
      });
    }), {
      seed: 2024,
      numRuns: 150,
      // The case: an override to PUT ahead of a PUT route on a param path.
      examples: [[[{ kind: 'change', mount: undefined, change: { from: 'POST', method: 'PUT' } }, { kind: 'route', path: '/user/:id', method: 'put' }], [['POST', '/user/9']], true]],
    });
    // The property is only worth something if requests really were rewritten on their way.
    assert.ok(changed > 40, `only ${changed} requests were changed mid-dispatch`);
  });

  it('routes a form POST overridden to PUT to a PUT route defined before the POST route', async () => {
    const expressOverride: Handler = (req, _res, next) => {
      const body = req.body as Record<string, unknown> | undefined;
      if (req.method === 'POST' && typeof body?._method === 'string') req.method = body._method.toUpperCase();
      next();
    };
    const theirs = expressKit();
    const ours = roaKit();
    theirs.kit.app.use(express.urlencoded({ extended: true }) as unknown as Handler, expressOverride);
    ours.kit.app.use(urlencoded() as unknown as Handler, methodOverride() as unknown as Handler);
    for (const { kit } of [theirs, ours]) {
      const users = kit.router();
      users.delete('/:id', reply('router-delete'));
      users.post('/:id', reply('router-post'));
      kit.app.put('/user/:id', reply('put'));
      kit.app.post('/user/:id', reply('post'));
      kit.app.use('/users', users);
    }
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases = [['/user/9', '_method=PUT'], ['/user/9', 'a=1'], ['/users/4', '_method=DELETE'], ['/users/4', '_method=patch']] as const;
    for (const [path, body] of cases) {
      const [want, got] = await Promise.all([theirs.app, ours.app].map((app) =>
        withServer(app, async (base) => observe(await request(base, 'POST', path, { headers: form, body }), 'POST'))));
      assert.deepEqual(got, want, `POST ${path} ${body}`);
    }
  });

  it('keeps repeated and indexed form values as express.urlencoded does', async () => {
    const theirs = expressKit();
    const ours = roaKit();
    theirs.kit.app.use(express.urlencoded({ extended: true }) as unknown as Handler);
    ours.kit.app.use(urlencoded() as unknown as Handler);
    for (const { kit } of [theirs, ours]) kit.app.post('/f', (req, res) => res.json(req.body));
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const bodies = [
      repeated('ids', 21), repeated('ids', 25), repeated('ids', 150), repeated('ids', 1000), 'a[21]=x&a[0]=y', 'a[99]=x', 'a[100]=x&a[1]=y',
      `${repeated('n', 120)}&a[110]=x`, 'c=1&c[5]=2', Array.from({ length: 30 }, (_, i) => `b[]=${i}`).join('&'),
    ];
    for (const body of bodies) {
      const [want, got] = await Promise.all([theirs.app, ours.app].map((app) =>
        withServer(app, async (base) => observe(await request(base, 'POST', '/f', { headers: form, body }), 'POST'))));
      assert.deepEqual(got, want, body.slice(0, 60));
    }
  });
});
