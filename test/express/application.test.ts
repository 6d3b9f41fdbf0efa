/**
 * @module test/express/application
 * roa/express as an Express 4 user meets it: loading by import and require, settings and their
 * compiled forms, app.param, views, sub-apps, and the default answers (404, OPTIONS, HEAD).
 * Express 4's own suite runs by bench/express-suite.sh; these keep the essentials in CI.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import etag from 'etag';
import express from '../../src/express/index.js';
import { strongETag, weakETag } from '../../src/express/settings.js';
import { request, withServer } from '../helpers/server.js';

process.env.NODE_ENV = 'test';

const views = join(import.meta.dirname, 'views');

/** A `{{name}}` template engine, enough to see what app.render hands an engine. */
function tmpl(path: string, options: Record<string, unknown>, callback: (err: unknown, html?: string) => void): void {
  readFile(path, 'utf8').then(
    (text) => callback(null, text.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => String(options[key]))),
    callback,
  );
}

describe('roa/express', () => {
  it('loads with require as the express function itself (package exports, built dist)', () => {
    const required = createRequire(import.meta.url)('roa/express') as typeof express;
    assert.equal(typeof required, 'function');
    for (const name of ['Router', 'Route', 'json', 'urlencoded', 'raw', 'text', 'static', 'query']) {
      assert.equal(typeof (required as unknown as Record<string, unknown>)[name], 'function', name);
    }
    assert.equal(typeof required.application.set, 'function');
  });

  it('loads with import as the default export', async () => {
    const mod = await import('roa/express') as { default: typeof express };
    assert.equal(typeof mod.default, 'function');
    assert.equal(typeof mod.default().handle, 'function');
  });

  it('keeps settings, compiles etag / query parser / trust proxy when set, and rejects unknown values', () => {
    const app = express();
    assert.equal(app.get('env'), 'test');
    assert.equal(app.enabled('x-powered-by'), true);
    assert.equal(typeof app.get('etag fn'), 'function');
    app.set('etag', false);
    assert.equal(app.get('etag fn'), undefined);
    assert.throws(() => app.set('etag', 'fancy'), /unknown value for etag function/);
    assert.throws(() => app.set('query parser', 'fancy'), /unknown value for query parser/);
    app.set('trust proxy', 'loopback');
    assert.equal((app.get('trust proxy fn') as (a: string, i: number) => boolean)('127.0.0.1', 0), true);
    app.disable('x-powered-by');
    assert.equal(app.disabled('x-powered-by'), true);
  });

  it('makes the ETags the etag package makes (Express 4 default weak, strong on request)', () => {
    for (const body of ['', 'Hello World', 'é'.repeat(5000), Buffer.from([0, 1, 2, 255])]) {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
      assert.equal(weakETag(body), etag(bytes, { weak: true }));
      assert.equal(strongETag(body), etag(bytes));
    }
    assert.equal(weakETag('caf\u00e9', 'latin1'), etag(Buffer.from('caf\u00e9', 'latin1'), { weak: true }));
  });

  it('routes with params, query by the query parser setting, and answers 404 as Express does', async () => {
    const app = express();
    app.set('query parser', 'simple');
    app.get('/users/:id', (req, res) => {
      res.end(`${req.params.id} ${JSON.stringify(req.query)}`);
    });
    await withServer(app, async (base) => {
      const hit = await request(base, 'GET', '/users/7?a[b]=1');
      assert.equal(hit.status, 200);
      assert.equal(hit.text, '7 {"a[b]":"1"}');
      assert.equal(hit.headers['x-powered-by'], 'Express');
      const miss = await request(base, 'GET', '/nothing');
      assert.equal(miss.status, 404);
      assert.match(miss.text, /Cannot GET \/nothing/);
    });
  });

  it('runs app.param callbacks once per value, in order, before the route', async () => {
    const app = express();
    const calls: string[] = [];
    app.param(['user', 'post'], (req, _res, next, value, name) => {
      calls.push(`${String(name)}=${String(value)}`);
      (req.params as Record<string, unknown>)[String(name)] = String(value).toUpperCase();
      next();
    });
    app.get('/u/:user/p/:post', (_req, _res, next) => next());
    app.get('/u/:user/p/:post', (req, res) => {
      res.end(`${req.params.user}/${req.params.post}`);
    });
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/u/ann/p/x1');
      assert.equal(res.text, 'ANN/X1');
      assert.deepEqual(calls, ['user=ann', 'post=x1']);
    });
  });

  it('skips to the next route when a param callback calls next("route")', async () => {
    const app = express();
    app.param('id', (_req, _res, next, id) => next(id === 'skip' ? 'route' : undefined));
    app.get('/item/:id', (_req, res) => res.end('first'));
    // Another name: the same value of `id` would skip this route too (its outcome is reused).
    app.get('/item/:key', (_req, res) => res.end('second'));
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/item/1')).text, 'first');
      assert.equal((await request(base, 'GET', '/item/skip')).text, 'second');
    });
  });

  it('renders views with app.locals and options, and caches the lookup with "view cache"', async () => {
    const app = express();
    app.set('views', views);
    app.set('view engine', 'tmpl');
    app.engine('tmpl', tmpl);
    app.locals.where = 'roa';
    const html = await new Promise<string>((resolve, reject) => {
      app.render('greeting', { name: 'Ada' }, (err, out) => (err ? reject(err as Error) : resolve(out as string)));
    });
    assert.equal(html, 'Hello Ada from roa');
    const missing = await new Promise<unknown>((resolve) => app.render('absent', (err: unknown) => resolve(err)));
    assert.match(String(missing), /Failed to lookup view "absent" in views directory/);
    app.enable('view cache');
    app.render('greeting', { name: 'B' }, () => {});
    assert.ok(app.cache.greeting, 'the view is cached by name');
  });

  it('mounts a sub-app: mount event, mountpath, path(), inherited settings, req.app and baseUrl inside', async () => {
    const app = express();
    const admin = express();
    let mountedBy: unknown;
    admin.on('mount', (parent: unknown) => {
      mountedBy = parent;
    });
    app.set('title', 'main');
    admin.get('/users', (req, res) => {
      res.end(`${String(req.app === admin)} ${req.baseUrl} ${req.originalUrl} ${String(admin.get('title'))}`);
    });
    app.use('/admin', admin);
    app.get('/after', (req, res) => {
      res.end(String(req.app === app));
    });
    assert.equal(mountedBy, app);
    assert.equal(admin.mountpath, '/admin');
    assert.equal(admin.path(), '/admin');
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/admin/users')).text, 'true /admin /admin/users main');
      assert.equal((await request(base, 'GET', '/after')).text, 'true');
    });
  });

  it('answers OPTIONS with Allow, HEAD by GET, and serves with app.listen', async () => {
    const app = express();
    app.get('/thing', (_req, res) => res.end('thing'));
    app.put('/thing', (_req, res) => res.end('put'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const options = await request(base, 'OPTIONS', '/thing');
      assert.equal(options.status, 200);
      assert.equal(options.headers.allow, 'GET,HEAD,PUT');
      const head = await request(base, 'HEAD', '/thing');
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("runs the README's roa/express example as written", async () => {
    const readme = readFileSync('README.md', 'utf8');
    const found = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes("from 'roa/express'"));
    assert.equal(found.length, 1, "one ts block in README.md imports roa/express");
    let code = found[0]!;
    const src = pathToFileURL(resolve('src/express/index.ts')).href;
    for (const [from, to] of [["from 'roa/express'", `from '${src}'`], ['app.listen(3000)', "app.listen(0, '127.0.0.1')"]] as const) {
      assert.ok(code.includes(from), `the README example still contains ${from}`);
      code = code.replace(from, to);
    }
    const dir = mkdtempSync(join(tmpdir(), 'roa-express-readme-'));
    const file = join(dir, 'example.mts');
    writeFileSync(file, `${code}\nexport { server };\n`);
    const { server } = await import(pathToFileURL(file).href) as { server: Server };
    try {
      if (!server.listening) await new Promise((done) => server.once('listening', done));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const user = await request(base, 'GET', '/users/12?fields=name');
      assert.equal(user.text, '{\n  "id": "12",\n  "fields": "name"\n}');
      assert.equal((await request(base, 'GET', '/users/ann')).status, 404);
      const echo = await request(base, 'POST', '/echo', { headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
      assert.deepEqual(JSON.parse(echo.text), { a: [1, 2] });
      assert.equal((await request(base, 'GET', '/admin')).text, 'admin at /admin');
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
