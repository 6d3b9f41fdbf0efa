/**
 * @module test/exports/public-api
 * The package's entry points as a user imports them, by name through package.json "exports"
 * (dist/, so run `npm run build` first): `roa`, `roa/resources`, `roa/auth`, `roa/gateway` and
 * `roa/client` carry what the README promises, and each is enough to build with. Importing `roa`
 * loads no database or Redis driver.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as roa from 'roa';
import * as auth from 'roa/auth';
import * as client from 'roa/client';
import * as gateway from 'roa/gateway';
import * as resources from 'roa/resources';
import { request as send, withServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORD = fileURLToPath(new URL('./fixtures/record-resolutions.mjs', import.meta.url));
const DRIVERS = /[\\/]node_modules[\\/](better-sqlite3|pg|redis|@redis[\\/][^\\/]+)[\\/]/;

function assertExports(mod: object, names: string[], entry: string): void {
  for (const name of names) assert.equal(typeof (mod as Record<string, unknown>)[name], 'function', `${entry} exports ${name}`);
}

describe('package exports', () => {
  it('roa exports the framework: app, router, middleware, errors, request and response', () => {
    assertExports(roa, [
      'createApp', 'Router', 'Route', 'Request', 'Response', 'negotiate', 'readRawBody', 'HttpError', 'sendProblem', 'problemFromError',
      'json', 'urlencoded', 'methodOverride', 'sameOriginForms', 'errorHandler', 'createService', 'startService', 'openStore',
    ], 'roa');
  });

  it("roa's types leave out the article application's (Article, ArticleInput, User, Role)", () => {
    const types = readFileSync(join(ROOT, 'dist', 'index.d.ts'), 'utf8');
    for (const name of ['Article', 'ArticleInput', 'User', 'Role']) assert.doesNotMatch(types, new RegExp(`\\b${name}\\b`), name);
    assert.match(types, /\bcreateApp\b/);
  });

  it('the subpaths export what declaring a resource, authenticating, caching and signing need', () => {
    assertExports(resources, ['resourceHandler', 'supportedMethods', 'rolePolicy', 'mayModify', 'Purger'], 'roa/resources');
    assertExports(auth, [
      'Authenticator', 'BasicScheme', 'HmacScheme', 'BearerScheme', 'MemoryNonceStore', 'StoreNonceStore', 'RedisNonceStore',
      'hashPassword', 'verifyPassword', 'SecretBox', 'sealHmacSecret', 'generateHmacSecret', 'OAuthTokenService', 'createOAuthRouter',
      'JwtAccessTokens', 'FailureThrottle', 'requireScope',
    ], 'roa/auth');
    assertExports(gateway, ['createGateway', 'runGateway', 'MemoryCacheStore'], 'roa/gateway');
    assertExports(client, ['signRequest', 'formatStringToSign', 'contentDigest'], 'roa/client');
    for (const sub of ['resources', 'auth', 'gateway', 'client']) assert.ok(existsSync(join(ROOT, 'dist', sub, 'index.d.ts')), `${sub} types`);
  });

  it('an app built from roa and roa/auth authenticates Basic and hmac callers', async () => {
    const box = new auth.SecretBox(Buffer.alloc(32, 7));
    const secret = auth.generateHmacSecret();
    const ann = {
      name: 'ann', role: 'editor' as const, passwordHash: await auth.hashPassword('s3cret', { N: 1024, r: 8, p: 1 }),
      hmacSecret: auth.sealHmacSecret(box, 'ann', secret), createdAt: new Date(),
    };
    const store = { getUser: async (name: string) => (name === 'ann' ? ann : undefined) };
    const authenticator = new auth.Authenticator([
      new auth.BasicScheme({ store }),
      new auth.HmacScheme({ store, box, nonces: new auth.MemoryNonceStore() }),
    ]);
    const app = roa.createApp();
    app.get('/me', authenticator.required(), (req, res) => res.json(req.locals.caller));
    app.use(roa.errorHandler({ log: false }));
    await withServer(app, async (base) => {
      const basic = await send(base, 'GET', '/me', { headers: { authorization: `Basic ${Buffer.from('ann:s3cret').toString('base64')}` } });
      assert.equal(basic.status, 200, basic.text);
      assert.deepEqual(JSON.parse(basic.text), { name: 'ann', role: 'editor', scopes: null, scheme: 'basic' });
      const wrong = await send(base, 'GET', '/me', { headers: { authorization: `Basic ${Buffer.from('ann:nope').toString('base64')}` } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers['www-authenticate'], 'Basic realm="roa", charset="UTF-8", hmac realm="roa"');
      const signed = client.signRequest('GET', '/me', undefined, 'ann', secret);
      const hmac = await send(base, 'GET', '/me', { headers: { ...signed } as Record<string, string> });
      assert.equal(hmac.status, 200, hmac.text);
      assert.equal(JSON.parse(hmac.text).scheme, 'hmac');
    });
  });

  it('a resource declared with roa/resources answers GET with validators, and writes need an editor', async () => {
    type Note = { id: string; owner: string; text: string; updatedAt: Date };
    const notes = new Map<string, Note>([['1', { id: '1', owner: 'ann', text: 'tea', updatedAt: new Date(0) }]]);
    const spec: resources.ResourceSpec<Note, { text: string }> = {
      name: 'note',
      paths: ['/notes/:id'],
      views: [{ mediaType: 'application/json', tag: 'j', render: (n) => JSON.stringify(n) }],
      bodies: [{ mediaType: 'application/json', parse: (raw) => JSON.parse(raw.toString()) }],
      permit: resources.rolePolicy({ readScope: 'notes:read', writeScope: 'notes:write' }),
      mayModify: (caller, n) => resources.mayModify(caller, n.owner),
      load: async (ctx) => notes.get(String(ctx.req.params.id)),
      validators: (n) => ({ etag: `${n.id}-${n.text.length}`, lastModified: n.updatedAt }),
      validate: (body) => ({ text: String((body as { text?: unknown }).text) }),
      put: async (ctx, input) => {
        const doc = { id: String(ctx.req.params.id), owner: 'ann', text: input.text, updatedAt: new Date() };
        const status = notes.has(doc.id) ? 'replaced' : 'created';
        notes.set(doc.id, doc);
        return { status, doc };
      },
    };
    assert.deepEqual(resources.supportedMethods(spec as resources.ResourceSpec<unknown, unknown>), ['HEAD', 'GET', 'OPTIONS', 'PUT']);
    const app = roa.createApp();
    app.all(spec.paths, resources.resourceHandler(spec, { authenticator: new auth.Authenticator([]) }));
    app.use(roa.errorHandler({ log: false }));
    await withServer(app, async (base) => {
      const get = await send(base, 'GET', '/notes/1', { headers: { accept: 'application/json' } });
      assert.equal(get.status, 200);
      assert.equal(JSON.parse(get.text).text, 'tea');
      assert.equal(get.headers.etag, '"1-3-j"');
      assert.equal((await send(base, 'GET', '/notes/2')).status, 404);
      const put = await send(base, 'PUT', '/notes/1', { headers: { 'content-type': 'application/json' }, body: '{"text":"green"}' });
      assert.equal(put.status, 401);
      assert.equal(notes.get('1')!.text, 'tea');
    });
  });

  it('roa/gateway runs a caching gateway with a MemoryCacheStore in front of a roa app', async () => {
    const origin = roa.createApp();
    let served = 0;
    origin.get('/hello', (_req, res) => {
      served++;
      res.set('Cache-Control', 'public, max-age=60').json({ hello: 'world' });
    });
    await withServer(origin, async (upstream) => {
      let puts = 0;
      const store = new (class extends gateway.MemoryCacheStore {
        override put(res: Parameters<gateway.CacheStore['put']>[0]): void {
          puts++;
          super.put(res);
        }
      })(1024 * 1024);
      const gw = gateway.createGateway({ upstream, store });
      const address = await gw.listen(0, '127.0.0.1');
      try {
        const base = `http://127.0.0.1:${address.port}`;
        const first = await send(base, 'GET', '/hello');
        const second = await send(base, 'GET', '/hello');
        assert.equal(first.headers['x-cache'], 'MISS');
        assert.equal(second.headers['x-cache'], 'HIT');
        assert.deepEqual(JSON.parse(second.text), { hello: 'world' });
        assert.equal(served, 1);
        assert.equal(puts, 1, 'the gateway filled the store it was given');
      } finally {
        await gw.close();
      }
    });
  });

  /** The driver modules importing `specifier` (and running `then`) resolved or required. */
  function driversLoadedBy(specifier: string, then: string): string[] {
    const dir = mkdtempSync(join(tmpdir(), 'roa-exports-'));
    const file = join(dir, 'resolved.txt');
    try {
      // The hook sees ESM resolutions; CommonJS loaded from CommonJS shows in require.cache.
      const code = `const roa = await import(${JSON.stringify(specifier)}); ${then}
        const { createRequire } = await import('node:module');
        console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
      const result = spawnSync(process.execPath, ['--import', RECORD, '--input-type=module', '-e', code], {
        cwd: ROOT, encoding: 'utf8', env: { ...process.env, ROA_RESOLUTIONS_FILE: file }, timeout: 60_000,
      });
      assert.equal(result.status, 0, result.stderr);
      const resolved = readFileSync(file, 'utf8').split('\n').filter((u) => u !== '');
      assert.ok(resolved.some((u) => u.includes('/dist/')), `the hook saw ${specifier} itself`);
      const required = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as string[];
      assert.ok(required.length > 0, 'require.cache lists the CommonJS modules loaded');
      return [...resolved, ...required].filter((u) => DRIVERS.test(u));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('importing roa resolves neither better-sqlite3 nor pg nor redis', () => {
    assert.deepEqual(driversLoadedBy('roa', "const app = roa.createApp(); app.get('/', (q, s) => s.send('ok'));"), []);
  });

  it('importing roa/auth, roa/resources or roa/gateway loads no driver either (Redis loads when a Redis store is made)', () => {
    for (const specifier of ['roa/auth', 'roa/resources', 'roa/gateway']) assert.deepEqual(driversLoadedBy(specifier, ''), [], specifier);
  });
});
