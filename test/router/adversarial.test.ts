/**
 * @module test/router/adversarial
 * Hostile request targets against an app with the GitHub-like route table: the app always
 * answers (2xx for real routes, 4xx otherwise, never 5xx nor a crash), and dispatch time grows
 * linearly with the length of the path (no super-linear regex or trie behaviour).
 */
import { describe, it, before } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { createApp, type App } from '../../src/app.js';
import { Request } from '../../src/http/request.js';
import { Response } from '../../src/http/response.js';
import { rawRequest, request, withServer } from '../helpers/server.js';

interface RouteTable {
  routes: Array<{ method: string; path: string }>;
}

const TABLE = JSON.parse(readFileSync('/work/shared/bench/github-routes.json', 'utf8')) as RouteTable;

/** GET / and POST /echo first, then the table in order, then a few regex-only patterns. */
function githubApp(): App {
  const app = createApp({ env: 'production' });
  const reply = (req: Request, res: Response): void => {
    res.json({ params: req.params });
  };
  app.get('/', reply);
  app.post('/echo', reply);
  for (const r of TABLE.routes) {
    (app as unknown as Record<string, (p: string, h: typeof reply) => void>)[r.method.toLowerCase()]!(r.path, reply);
  }
  // Patterns the index leaves to their regex: the matcher's slow path must stay linear too.
  app.get('/search/:q(.*)', reply);
  app.get('/pair/:a-:b', reply);
  app.get('/dl/:name.:ext?', reply);
  app.get('/opt/:x?/:y?', reply);
  app.get('/files/*', reply);
  return app;
}

const LONG = 64 * 1024;
const ADVERSARIAL: string[] = [
  '/' + 'a'.repeat(LONG),
  '/repos/' + 'a'.repeat(LONG) + '/b/issues/1',
  '/'.repeat(10_000),
  '/a'.repeat(10_000),
  '/repos' + '/x'.repeat(5_000),
  '/%',
  '/%zz',
  '/repos/%/x/issues/1',
  '/repos/a/b/issues/%E0%A4%A',
  '/gists/%00',
  '/gists/%C0%80',
  '/gists/%ED%A0%80',
  '/gists/' + '%'.repeat(5_000),
  '/gists/' + '%zz'.repeat(3_000),
  '/search/' + '%41%'.repeat(2_000),
  '/pair/' + 'x-'.repeat(10_000),
  '/pair/' + '-'.repeat(10_000),
  '/dl/' + '.'.repeat(10_000),
  '/dl/' + 'a.'.repeat(10_000),
  '/opt' + '/'.repeat(10_000),
  '/../../etc/passwd',
  '/repos/../../..',
  '/gists/..%2F..%2F',
  '/files/' + '../'.repeat(1000),
  '/%2e%2e/%2e%2e',
  '/emojis?' + 'a[b]'.repeat(1000) + '=1',
  '/emojis?__proto__[x]=1&constructor[prototype][y]=2',
  '/emojis#frag',
  '/emojis;jsessionid=1',
  '*',
  'http://example.com/emojis',
  'http://example.com',
  '/caf%C3%A9/%F0%9F%98%80',
  '/\u00e9\u00ff',
];

function assertAnswered(status: number, path: string): void {
  assert.ok((status >= 200 && status < 300) || (status >= 400 && status < 500), `status ${status} for ${JSON.stringify(path.slice(0, 80))}`);
}

describe('adversarial request targets', () => {
  let app: App;
  before(() => {
    app = githubApp();
  });

  it('answers every listed hostile target with 2xx or 4xx over HTTP', async () => {
    await withServer(app, async (base) => {
      for (const path of ADVERSARIAL) {
        const res = await request(base, 'GET', path);
        assertAnswered(res.status, path);
        // The raised header limit lets even the 64 KB targets reach the router.
        assert.notEqual(res.status, 431, path.slice(0, 40));
      }
      // Still serving afterwards.
      assert.equal((await request(base, 'GET', '/emojis')).status, 200);
    }, { maxHeaderSize: 256 * 1024 });
  });

  it('answers 400 for a malformed escape in a captured param', async () => {
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/gists/%zz')).status, 400);
      assert.equal((await request(base, 'GET', '/repos/a/b/issues/%E0%A4%A')).status, 400);
    });
  });

  it('answers raw UTF-8 bytes and NUL escapes in the target without crashing', async () => {
    await withServer(app, async (base) => {
      const targets = [Buffer.from('/gists/\u00e9\u6f22\ud83d\ude00', 'utf8'), Buffer.from('/gists/%00/comments'), Buffer.from('/repos/\u0430/b/issues/1', 'utf8')];
      for (const t of targets) {
        const head = Buffer.concat([Buffer.from('GET '), t, Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]);
        const status = await rawRequest(base, head);
        assertAnswered(status, t.toString('latin1'));
      }
      assert.equal((await request(base, 'GET', '/emojis')).status, 200);
    });
  });

  it('answers generated garbage paths with 2xx or 4xx', async () => {
    const unit = fc.constantFrom('/', '//', '%', '%2', '%zz', '%00', '%2F', '%C3', '%A9', '..', '.', 'a', 'A', 'repos', 'gists', 'issues', '1', '-', '~', '*', '(', ')', ':', '?', '#', '\u00e9', 'x'.repeat(300));
    const garbage = fc.array(unit, { minLength: 0, maxLength: 40 }).map((u) => '/' + u.join(''));
    await withServer(app, async (base) => {
      await fc.assert(fc.asyncProperty(garbage, fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS', 'DELETE'), async (path, method) => {
        const res = await request(base, method, path);
        assertAnswered(res.status, path);
      }), { seed: 4242, numRuns: 400 });
    });
  });

  it('dispatches in time linear in the path length', () => {
    const shapes: Array<[string, (n: number) => string]> = [
      ['long segment', (n) => '/repos/' + 'a'.repeat(n) + '/b/issues/1'],
      ['many slashes', (n) => '/'.repeat(n)],
      ['many segments', (n) => '/repos' + '/x'.repeat(n / 2)],
      ['percent garbage', (n) => '/gists/' + '%z'.repeat(n / 2)],
      ['dash pairs', (n) => '/pair/' + 'x-'.repeat(n / 2)],
      ['dots', (n) => '/dl/' + 'a.'.repeat(n / 2)],
      ['optional slashes', (n) => '/opt' + '/'.repeat(n)],
      ['search capture', (n) => '/search/' + 'q%41'.repeat(n / 4)],
      ['upper case', (n) => '/REPOS/' + 'A'.repeat(n) + '/B/ISSUES/1'],
    ];
    for (const [name, make] of shapes) {
      // 16x the input: linear is ~16x, quadratic ~256x. A busy machine can stall either run, so
      // the best of a few attempts counts: noise inflates some ratios, a quadratic cost all of them.
      let best = Infinity;
      for (let attempt = 0; attempt < 5 && best >= 40; attempt++) {
        const small = timeDispatch(app, make(1_024));
        const large = timeDispatch(app, make(16_384));
        if (process.env.ROA_DEBUG_RATIOS) console.log(name, small.toFixed(3), large.toFixed(3), (large / small).toFixed(1));
        best = Math.min(best, large / small);
      }
      assert.ok(best < 40, `${name}: 16x longer path took ${best.toFixed(1)}x as long`);
    }
  });
});

/** Median time of one in-process dispatch (real Request/Response objects on an unconnected socket). */
function timeDispatch(app: App, path: string): number {
  const rounds = 7;
  const perRound = 20;
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < perRound; i++) {
      const req = new Request(new Socket());
      req.method = 'GET';
      req.url = path;
      const res = new Response(req);
      app.handle(req, res);
      assertAnswered(res.statusCode, path);
    }
    samples.push(performance.now() - start);
  }
  // The fastest round is the one least disturbed by other processes; a floor keeps the ratio
  // meaningful when the small case is below timer resolution.
  return Math.max(Math.min(...samples), 0.05);
}
