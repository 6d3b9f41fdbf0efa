/**
 * @module test/router/express-differential
 * The same app definitions registered on express@4 and on roa, the same requests fired at both
 * over HTTP: statuses, `Allow`, and the JSON the handlers produce must agree. Default 404/500
 * bodies differ by design (roa answers RFC 9457 problem+json), so only their statuses count.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import { createApp } from '../../src/app.js';
import { Router } from '../../src/router/router.js';
import { request, withServer, type Servable, type SimpleResponse } from '../helpers/server.js';

// Deliberate 5xx answers below: keep roa's final handler from logging them.
process.env.NODE_ENV = 'test';

type Next = (err?: unknown) => void;
interface Req {
  params: Record<string, unknown>;
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
