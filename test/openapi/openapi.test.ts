import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { after, before, describe, it } from '../helpers/node-test.js';
import { send, startTestService, type TestService } from '../helpers/service.js';
import { OAUTH_ENDPOINTS } from '../../src/auth/oauth-router.js';
import { OPERATIONAL_ENDPOINTS } from '../../src/openapi/operational-endpoints.js';
import { openApiPath } from '../../src/openapi/openapi-document.js';
import { routeInventory, type RouteEntry } from '../../src/openapi/route-inventory.js';

type Doc = { servers: Array<{ url: string }>; paths: Record<string, Record<string, Op>>; components: { securitySchemes: Record<string, Record<string, unknown>> } };
type Op = { security?: Array<Record<string, string[]>>; parameters?: Array<{ name: string; in: string; required?: boolean; schema?: { maxLength?: number } }>; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>; requestBody?: { content: Record<string, unknown> } };

const METHODS = ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'trace'];
const MIDDLEWARE_PATHS = new Set(OPERATIONAL_ENDPOINTS.filter((e) => e.middleware).map((e) => e.path));

/** Routes mounted but not described: a path missing, or (for routes naming methods) a method missing. */
function undocumented(routes: Map<string, RouteEntry>, doc: Doc): string[] {
  const missing: string[] = [];
  for (const r of routes.values()) {
    const item = doc.paths[r.path];
    if (item === undefined) {
      missing.push(r.path);
      continue;
    }
    // A route taking every method (a resource) is described by its declaration; others by their methods.
    for (const m of r.methods) if (item[m.toLowerCase()] === undefined) missing.push(`${m} ${r.path}`);
  }
  return missing;
}

/** Operations described but answered by nothing the router holds (the middleware endpoints are probed instead). */
function unmounted(routes: Map<string, RouteEntry>, doc: Doc): string[] {
  const missing: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (MIDDLEWARE_PATHS.has(path)) continue;
    const r = routes.get(path);
    for (const m of METHODS) {
      if (item[m] === undefined) continue;
      if (r === undefined || (r.methods.size > 0 && !r.methods.has(m.toUpperCase()))) missing.push(`${m.toUpperCase()} ${path}`);
    }
  }
  return missing;
}

async function documentOf(base: string, headers: Record<string, string> = {}): Promise<Doc> {
  const r = await send(base, 'GET', '/openapi.json', { headers });
  assert.equal(r.status, 200, r.text);
  assert.match(r.headers['content-type']!, /^application\/json/);
  return JSON.parse(r.text) as Doc;
}

for (const tokenFormat of ['opaque', 'jwt'] as const) {
  describe(`GET /openapi.json (${tokenFormat} tokens)`, () => {
    let svc: TestService;
    let dir: string;
    let doc: Doc;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'roa-openapi-'));
      svc = await startTestService({ tokenFormat, jwtKeyFile: join(dir, 'jwt.json') });
      doc = await documentOf(svc.base);
    });
    after(async () => {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
      assert.equal((doc as unknown as { openapi: string }).openapi, '3.1.0');
      await SwaggerParser.validate(structuredClone(doc) as never);
    });

    it('describes every route the service mounts, and mounts every operation it describes', () => {
      const routes = routeInventory(svc.running.app.router);
      assert.ok(routes.size >= 6, `routes found: ${[...routes.keys()].join(' ')}`);
      assert.deepEqual(undocumented(routes, doc), []);
      assert.deepEqual(unmounted(routes, doc), []);
    });

    it('a route added without a description fails the comparison', () => {
      const routes = routeInventory(svc.running.app.router);
      routes.set('/extra/{id}', { path: '/extra/{id}', methods: new Set(['GET', 'HEAD']), all: false });
      routes.get('/openapi.json')!.methods.add('POST');
      assert.deepEqual(undocumented(routes, doc), ['POST /openapi.json', '/extra/{id}']);
    });

    it('the operational endpoints it describes answer on the service', async () => {
      for (const e of OPERATIONAL_ENDPOINTS) {
        assert.ok(doc.paths[e.path]?.get !== undefined && doc.paths[e.path]?.head !== undefined, e.path);
        const r = await send(svc.base, 'GET', e.path);
        assert.ok(Object.keys(e.responses).includes(String(r.status)), `${e.path} answered ${r.status}`);
      }
    });

    it('names the OAuth endpoints the router serves', () => {
      for (const e of OAUTH_ENDPOINTS) {
        const served = e.jwtOnly !== true || tokenFormat === 'jwt';
        assert.equal(doc.paths[e.path]?.[e.method.toLowerCase()] !== undefined, served, e.path);
      }
    });
  });
}

describe('the OpenAPI description of the articles', () => {
  let svc: TestService;
  let doc: Doc;
  before(async () => {
    svc = await startTestService();
    doc = await documentOf(svc.base);
  });
  after(() => svc.close());

  it('converts Express paths, with their path parameters', () => {
    assert.deepEqual(openApiPath('/article/:key'), { path: '/article/{key}', params: ['key'] });
    const item = doc.paths['/article/{key}'] as unknown as { parameters: Array<{ name: string; in: string; required: boolean }> } & Record<string, Op>;
    assert.deepEqual(item.parameters.map((p) => [p.name, p.in, p.required]), [['key', 'path', true]]);
    assert.deepEqual(Object.keys(item).filter((k) => METHODS.includes(k)).sort(), ['delete', 'get', 'head', 'options', 'put']);
    assert.deepEqual(Object.keys(doc.paths['/articles']!).filter((k) => METHODS.includes(k)).sort(), ['get', 'head', 'options', 'post']);
  });

  it('names media types from views and bodies, statuses per method and problem+json errors', () => {
    const get = doc.paths['/article/{key}']!.get!;
    assert.deepEqual(Object.keys(get.responses['200']!.content!).sort(), ['application/json', 'application/xml', 'text/html']);
    for (const s of ['200', '304', '401', '403', '404', '406', '412']) assert.ok(get.responses[s], `GET ${s}`);
    assert.ok(get.responses['404']!.content!['application/problem+json']);
    const put = doc.paths['/article/{key}']!.put!;
    for (const s of ['200', '201', '400', '412', '413', '415', '422']) assert.ok(put.responses[s], `PUT ${s}`);
    assert.ok(Object.keys(put.requestBody!.content).includes('application/json'));
    assert.ok(Object.keys(put.requestBody!.content).includes('multipart/form-data'));
    // HTML is read, never written back: a browser's form write is sent on with 303.
    assert.deepEqual(Object.keys(put.responses['200']!.content!).sort(), ['application/json', 'application/xml']);
    assert.ok(put.responses['303']);
    assert.ok(doc.paths['/article/{key}']!.delete!.responses['303']);
    assert.ok(doc.paths['/article/{key}']!.delete!.responses['204']);
    assert.equal(doc.paths['/articles']!.get!.responses['404'], undefined, 'the collection always exists');
  });

  it('documents Idempotency-Key on POST /articles', () => {
    const post = doc.paths['/articles']!.post!;
    const key = post.parameters!.find((p) => p.name === 'Idempotency-Key')!;
    assert.equal(key.in, 'header');
    assert.equal(key.required, false);
    assert.equal(key.schema!.maxLength, 255);
    assert.ok(post.responses['409'] && post.responses['422']);
    assert.ok(post.responses['201']!.headers!['Idempotent-Replayed']);
    assert.ok(post.responses['201']!.headers!.Location);
  });

  it('has Basic, hmac and OAuth 2.0 schemes; reads allow anonymous callers, writes do not', () => {
    const schemes = doc.components.securitySchemes;
    assert.deepEqual(schemes.basicAuth, { ...schemes.basicAuth, type: 'http', scheme: 'basic' });
    assert.equal(schemes.hmac!.in, 'header');
    assert.equal(schemes.hmac!.name, 'Authentication');
    const flows = schemes.oauth2!.flows as Record<string, { tokenUrl: string }>;
    assert.deepEqual(Object.keys(flows).sort(), ['authorizationCode', 'clientCredentials', 'password']);
    assert.equal(flows.clientCredentials!.tokenUrl, `${svc.base}/oauth/token`);
    assert.equal((flows.authorizationCode as unknown as { authorizationUrl: string }).authorizationUrl, `${svc.base}/oauth/authorize`);
    assert.ok(doc.paths['/articles']!.get!.security!.some((s) => Object.keys(s).length === 0));
    assert.ok(!doc.paths['/articles']!.post!.security!.some((s) => Object.keys(s).length === 0));
    assert.deepEqual(doc.paths['/articles']!.post!.security!.find((s) => 'oauth2' in s), { oauth2: ['articles:write'] });
  });

  it('names the public origin in servers, one document per origin', async () => {
    assert.deepEqual(doc.servers, [{ url: svc.base }]);
    const other = await documentOf(svc.base, { Host: 'api.example:8443' });
    assert.deepEqual(other.servers, [{ url: 'http://api.example:8443' }]);
    const proxied = await documentOf(svc.base, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'articles.example' });
    assert.deepEqual(proxied.servers, [{ url: 'https://articles.example' }]);
    assert.deepEqual(await documentOf(svc.base), doc);
  });

  it('answers HEAD without a body', async () => {
    const r = await send(svc.base, 'HEAD', '/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
  });
});

describe('GET /openapi.json with --issuer', () => {
  it('names the issuer in servers and the token URL', async () => {
    const svc = await startTestService({ issuer: 'https://id.example', passwordGrant: false });
    try {
      const doc = await documentOf(svc.base);
      assert.deepEqual(doc.servers, [{ url: 'https://id.example' }]);
      const flows = doc.components.securitySchemes.oauth2!.flows as Record<string, { tokenUrl: string }>;
      assert.deepEqual(Object.keys(flows), ['authorizationCode', 'clientCredentials']);
      assert.equal(flows.clientCredentials!.tokenUrl, 'https://id.example/oauth/token');
    } finally {
      await svc.close();
    }
  });
});
