import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from '../helpers/node-test.js';
import { send, startTestService, type SimpleResponse, type TestService } from '../helpers/service.js';
import { normaliseOrigin, parseCorsOrigins } from '../../src/middleware/cors.js';

const A = 'https://app.example';
const B = 'http://localhost:5173';
const EVIL = 'https://evil.example';

function varies(r: SimpleResponse): string[] {
  return (r.headers.vary ?? '').split(',').map((s) => s.trim().toLowerCase());
}

function noCorsFields(r: SimpleResponse): void {
  for (const name of Object.keys(r.headers)) assert.ok(!name.startsWith('access-control-'), `${name} on a response that must have none`);
}

function preflight(base: string, path: string, origin: string, method = 'PUT', headers = 'authorization, content-type, if-match'): Promise<SimpleResponse> {
  return send(base, 'OPTIONS', path, { headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers } });
}

describe('parseCorsOrigins', () => {
  it('normalises origins as the Origin header carries them', () => {
    const o = parseCorsOrigins(' https://App.Example:443 ,http://localhost:5173/');
    assert.equal(o.any, false);
    assert.deepEqual(o.any ? [] : [...o.origins], [A, B]);
    assert.equal(normaliseOrigin('http://[::1]:8080'), 'http://[::1]:8080');
  });

  it('takes * alone, meaning any origin without credentials', () => {
    assert.deepEqual(parseCorsOrigins('*'), { any: true });
    assert.throws(() => parseCorsOrigins(`*,${A}`), /cannot be combined/);
  });

  it('refuses what is not scheme://host[:port] with a one-line error', () => {
    for (const bad of ['app.example', 'ftp://app.example', 'https://app.example/path', 'https://app.example?x', 'https://u:p@app.example', 'https://', 'null', ' , ']) {
      assert.throws(() => parseCorsOrigins(bad), (err: Error) => /--cors-origin/.test(err.message) && !err.message.includes('\n'), bad);
    }
  });

  it('a bad --cors-origin stops roa serve with one line', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--db', ':memory:', '--port', '0', '--gateway-port', '0', '--cors-origin', 'https://a.example/x'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /--cors-origin: 'https:\/\/a\.example\/x' is not an origin/);
    const env = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--db', ':memory:', '--port', '0', '--gateway-port', '0'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ROA_CORS_ORIGIN: 'gopher://x' } });
    assert.equal(env.status, 1);
    assert.match(env.stderr, /scheme must be http or https/);
  });

  it('startService refuses a bad origin', async () => {
    await assert.rejects(startTestService({ corsOrigin: ['not an origin'] }), /--cors-origin/);
  });
});

describe('CORS off by default', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('sends no CORS fields and no Vary: Origin', async () => {
    const r = await send(svc.base, 'GET', '/articles', { headers: { Origin: A } });
    assert.equal(r.status, 200);
    noCorsFields(r);
    assert.ok(!varies(r).includes('origin'));
  });

  it('leaves every OPTIONS to the resource', async () => {
    const r = await preflight(svc.base, '/articles', A);
    assert.equal(r.status, 200);
    assert.ok(r.headers.allow);
    noCorsFields(r);
  });
});

describe('CORS with --cors-origin', () => {
  let svc: TestService;
  let editor: string;
  before(async () => {
    svc = await startTestService({ corsOrigin: ['https://APP.example:443', B] });
    editor = await svc.addUser('ed', 'editor');
  });
  after(() => svc.close());

  it('answers a preflight from a listed origin 204, before the resource', async () => {
    const r = await preflight(svc.base, '/article/some-slug', A);
    assert.equal(r.status, 204);
    assert.equal(r.headers['access-control-allow-origin'], A);
    assert.equal(r.headers['access-control-allow-credentials'], 'true');
    assert.match(r.headers['access-control-allow-methods']!, /PUT/);
    for (const h of ['Authorization', 'Authentication', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id', 'Date', 'Content-Digest']) {
      assert.ok(r.headers['access-control-allow-headers']!.split(',').includes(h), h);
    }
    assert.equal(r.headers['access-control-max-age'], '600');
    assert.equal(r.headers.allow, undefined, 'the resource did not answer');
    assert.ok(varies(r).includes('origin'));
  });

  it('refuses a preflight from another origin 403, with no CORS fields', async () => {
    const r = await preflight(svc.base, '/articles', EVIL, 'POST');
    assert.equal(r.status, 403);
    assert.match(r.headers['content-type']!, /problem\+json/);
    assert.equal(JSON.parse(r.text).code, 'ROA_ERR_CORS_ORIGIN');
    noCorsFields(r);
    assert.ok(varies(r).includes('origin'));
  });

  it('leaves an OPTIONS without Origin to the resource, Access-Control-Request-Method or not', async () => {
    const r = await send(svc.base, 'OPTIONS', '/articles', { headers: { 'Access-Control-Request-Method': 'POST' } });
    assert.equal(r.status, 200);
    assert.ok(r.headers.allow);
    noCorsFields(r);
  });

  it('lets a plain OPTIONS reach the resource, whose Allow depends on the caller', async () => {
    const r = await send(svc.base, 'OPTIONS', '/articles', { headers: { Origin: A, Authorization: editor } });
    assert.equal(r.status, 200);
    assert.match(r.headers.allow!, /POST/);
    assert.equal(r.headers['access-control-allow-origin'], A);
    assert.equal(r.headers['access-control-allow-methods'], undefined);
  });

  it('echoes a listed origin on actual requests, with credentials and exposed fields', async () => {
    const created = await send(svc.base, 'POST', '/articles', { headers: { Origin: B, Authorization: editor, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ title: 'Tea', price: { amount: '3.50', currency: 'eur' } }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers['access-control-allow-origin'], B);
    assert.equal(created.headers['access-control-allow-credentials'], 'true');
    const exposed = created.headers['access-control-expose-headers']!.split(',');
    for (const h of ['ETag', 'Location', 'Link', 'X-Request-Id', 'Idempotent-Replayed', 'Allow', 'WWW-Authenticate']) assert.ok(exposed.includes(h), h);
    assert.ok(varies(created).includes('origin'));
    const got = await send(svc.base, 'GET', created.headers.location!, { headers: { Origin: A } });
    assert.equal(got.headers['access-control-allow-origin'], A);
    assert.deepEqual(varies(got).filter((v) => v === 'accept' || v === 'origin').sort(), ['accept', 'origin']);
    const notModified = await send(svc.base, 'GET', created.headers.location!, { headers: { Origin: A, 'If-None-Match': got.headers.etag! } });
    assert.equal(notModified.status, 304);
    assert.ok(varies(notModified).includes('origin'));
  });

  it('sends Vary: Origin and no CORS fields for other origins and same-origin requests', async () => {
    for (const headers of [{ Origin: EVIL }, {}, { Origin: 'null' }] as Array<Record<string, string>>) {
      const r = await send(svc.base, 'GET', '/articles', { headers });
      assert.equal(r.status, 200);
      noCorsFields(r);
      assert.ok(varies(r).includes('origin'), JSON.stringify(headers));
    }
    const missing = await send(svc.base, 'GET', '/article/999999', { headers: { Origin: EVIL } });
    assert.equal(missing.status, 404);
    assert.ok(varies(missing).includes('origin'));
  });

  it('gives an error answer the CORS fields, so a script can read it', async () => {
    const r = await send(svc.base, 'POST', '/articles', { headers: { Origin: A, 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(r.status, 401);
    assert.equal(r.headers['access-control-allow-origin'], A);
    assert.ok(r.headers['access-control-expose-headers']!.includes('WWW-Authenticate'));
  });

  it('applies the same rules to the OAuth token endpoint', async () => {
    const ok = await preflight(svc.base, '/oauth/token', A, 'POST', 'authorization, content-type');
    assert.equal(ok.status, 204);
    assert.equal(ok.headers['access-control-allow-origin'], A);
    const refused = await preflight(svc.base, '/oauth/token', EVIL, 'POST');
    assert.equal(refused.status, 403);
    const token = await send(svc.base, 'POST', '/oauth/token', { headers: { Origin: A, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    assert.equal(token.status, 401);
    assert.equal(token.headers['access-control-allow-origin'], A);
  });
});

describe('CORS with --cors-origin *', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ corsOrigin: ['*'] });
  });
  after(() => svc.close());

  it('allows any origin without credentials', async () => {
    const pre = await preflight(svc.base, '/articles', EVIL, 'POST');
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], '*');
    assert.equal(pre.headers['access-control-allow-credentials'], undefined);
    const r = await send(svc.base, 'GET', '/articles', { headers: { Origin: EVIL } });
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.equal(r.headers['access-control-allow-credentials'], undefined);
  });
});

describe('CORS through the embedded gateway', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral', corsOrigin: [A, B] });
  });
  after(() => svc.close());

  it('stores one variant per Origin: each origin gets its own ACAO, MISS then HIT', async () => {
    const gw = svc.gatewayBase!;
    const get = (origin: string | undefined): Promise<SimpleResponse> => send(gw, 'GET', '/articles', { headers: origin === undefined ? {} : { Origin: origin } });
    const expect = async (origin: string | undefined, cache: 'MISS' | 'HIT'): Promise<void> => {
      const r = await get(origin);
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-cache'], cache, `${origin ?? 'no origin'} ${cache}`);
      const listed = origin === A || origin === B;
      assert.equal(r.headers['access-control-allow-origin'], listed ? origin : undefined, `${origin ?? 'no origin'} ${cache}`);
      assert.equal(r.headers['access-control-allow-credentials'], listed ? 'true' : undefined);
      assert.ok(varies(r).includes('origin'));
    };
    await expect(A, 'MISS');
    await expect(A, 'HIT');
    await expect(B, 'MISS');
    await expect(B, 'HIT');
    await expect(undefined, 'MISS');
    await expect(undefined, 'HIT');
    await expect(EVIL, 'MISS');
    await expect(EVIL, 'HIT');
    await expect(A, 'HIT');
    await expect(B, 'HIT');
  });

  it('passes preflights through uncached', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await preflight(svc.gatewayBase!, '/articles', A, 'POST');
      assert.equal(r.status, 204);
      assert.equal(r.headers['access-control-allow-origin'], A);
      assert.notEqual(r.headers['x-cache'], 'HIT');
    }
  });
});
