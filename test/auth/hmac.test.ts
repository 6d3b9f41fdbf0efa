/** @module test/auth/hmac */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { after, before, beforeEach, describe, it } from '../helpers/node-test.js';
import { Authenticator } from '../../src/auth/authenticator.js';
import { BasicScheme } from '../../src/auth/basic.js';
import { HmacScheme, type HmacSchemeOptions } from '../../src/auth/hmac.js';
import { parseImfFixdate } from '../../src/auth/hmac-header.js';
import { MemoryNonceStore } from '../../src/auth/memory-nonce-store.js';
import type { NonceStore } from '../../src/auth/nonce-store.js';
import { safeEqual } from '../../src/auth/safe-equal.js';
import { generateHmacSecret, sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';
import { StoreNonceStore } from '../../src/auth/store-nonce-store.js';
import { signRequest, type SignRequestOptions } from '../../src/client/index.js';
import { MemoryAuthStore } from './memory-store.js';
import { serve, type TestServer } from './server.js';

const box = new SecretBox(randomBytes(32));
const secret = generateHmacSecret();

interface Setup {
  srv: TestServer;
  store: MemoryAuthStore;
  nonces: NonceStore;
  equalCalls: number;
}

async function setup(opts: Partial<HmacSchemeOptions> = {}): Promise<Setup> {
  const store = new MemoryAuthStore();
  await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'x', hmacSecret: sealHmacSecret(box, 'ann', secret) });
  await store.createUser({ name: 'nosecret', role: 'reader', passwordHash: 'x' });
  const s: Setup = { store, nonces: opts.nonces ?? new MemoryNonceStore(), equalCalls: 0, srv: undefined as never };
  const hmac = new HmacScheme({
    store,
    box,
    nonces: s.nonces,
    production: false,
    safeEqual: (a, b) => (s.equalCalls++, safeEqual(a, b)),
    ...opts,
  });
  const auth = new Authenticator([new BasicScheme({ store }), hmac]);
  s.srv = await serve(async (req, res) => {
    const caller = await auth.authenticate(req);
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(caller ?? null));
  });
  return s;
}

type Sig = Partial<SignRequestOptions>;

/** Signs with `sig` and sends with `send` (defaults: the same method/target/body). */
async function call(s: Setup, sig: Sig, send: { method?: string; target?: string; body?: string; headers?: Record<string, string> } = {}) {
  const o: SignRequestOptions = { method: 'GET', target: '/articles', user: 'ann', secret, ...sig };
  const headers: Record<string, string> = { ...signRequest(o), ...send.headers } as Record<string, string>;
  const method = send.method ?? o.method;
  const body = send.body ?? (typeof o.body === 'string' ? o.body : undefined);
  return fetch(s.srv.url + (send.target ?? String(o.target)), { method, headers, body });
}

describe('HmacScheme', () => {
  let s: Setup;
  before(async () => {
    s = await setup();
  });
  after(() => s.srv.close());
  beforeEach(() => {
    s.equalCalls = 0;
  });

  it('accepts the replay-protected form', async () => {
    const r = await call(s, {});
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { name: 'ann', role: 'editor', scopes: null, scheme: 'hmac' });
  });
  it('accepts the minimal form for GET', async () => {
    assert.equal((await call(s, { minimal: true })).status, 200);
  });
  it('accepts a signed query string and rejects a changed one', async () => {
    assert.equal((await call(s, { target: '/articles?page=2&q=a%20b' })).status, 200);
    assert.equal((await call(s, { target: '/articles?page=2' }, { target: '/articles?page=3' })).status, 401);
  });
  it('refuses a replayed nonce on the same instance', async () => {
    const headers = signRequest({ method: 'GET', target: '/articles', user: 'ann', secret }) as unknown as Record<string, string>;
    assert.equal((await fetch(s.srv.url + '/articles', { headers })).status, 200);
    const again = await fetch(s.srv.url + '/articles', { headers });
    assert.equal(again.status, 401);
    assert.match(((await again.json()) as { message: string }).message, /Nonce already used/);
  });
  it('refuses stale and future Dates beyond 10 minutes, accepts within', async () => {
    const at = (ms: number) => call(s, { date: new Date(Date.now() + ms) });
    assert.equal((await at(-11 * 60_000)).status, 401);
    assert.equal((await at(11 * 60_000)).status, 401);
    assert.equal((await at(-9 * 60_000)).status, 200);
    assert.equal((await at(9 * 60_000)).status, 200);
  });
  it('refuses a header reused for another method or another target', async () => {
    assert.equal((await call(s, { method: 'GET' }, { method: 'DELETE' })).status, 401);
    assert.equal((await call(s, { target: '/articles/1' }, { target: '/articles/2' })).status, 401);
  });
  it('signs the raw target, not a decoded one', async () => {
    assert.equal((await call(s, { target: '/articles/%7Eann' }, { target: '/articles/~ann' })).status, 401);
    assert.equal((await call(s, { target: '/articles/%7Eann' })).status, 200);
  });
  it('checks Content-Digest: intact body passes, tampered body is 400', async () => {
    const body = '{"title":"a"}';
    assert.equal((await call(s, { method: 'POST', body })).status, 200);
    assert.equal((await call(s, { method: 'POST', body }, { body: '{"title":"b"}' })).status, 400);
  });
  it('checks Content-Digest over a gzip body as sent (RFC 9530 §2), not the decoded bytes', async () => {
    const plain = '{"title":"a"}';
    const coded = gzipSync(plain);
    const send = (digestOf: Buffer | string) => {
      const headers = signRequest({ method: 'POST', target: '/articles', user: 'ann', secret, body: digestOf }) as unknown as Record<string, string>;
      return fetch(s.srv.url + '/articles', { method: 'POST', body: coded, headers: { ...headers, 'content-encoding': 'gzip' } });
    };
    assert.equal((await send(coded)).status, 200);
    assert.equal((await send(plain)).status, 400);
  });
  it('refuses a signature made without the Content-Digest that was then added', async () => {
    const body = '{"title":"a"}';
    const signed = signRequest({ method: 'POST', target: '/articles', user: 'ann', secret }) as unknown as Record<string, string>;
    const withDigest = signRequest({ method: 'POST', target: '/articles', user: 'ann', secret, body });
    const r = await fetch(s.srv.url + '/articles', { method: 'POST', body, headers: { ...signed, 'content-digest': withDigest['Content-Digest']! } });
    assert.equal(r.status, 401);
  });
  it('answers an unknown user, a user without secret and a bad digest identically', async () => {
    const fixed = { date: new Date(Date.UTC(2026, 0, 1)), nonce: 'a'.repeat(20) };
    const now = () => Date.UTC(2026, 0, 1);
    const t = await setup({ now });
    try {
      const wrong = await call(t, { ...fixed, secret: generateHmacSecret() });
      const unknown = await call(t, { ...fixed, user: 'nobody' });
      const nosecret = await call(t, { ...fixed, user: 'nosecret' });
      const bodies = await Promise.all([wrong, unknown, nosecret].map((r) => r.text()));
      for (const r of [wrong, unknown, nosecret]) {
        assert.equal(r.status, 401);
        assert.equal(r.headers.get('www-authenticate'), 'hmac realm="roa", Basic realm="roa", charset="UTF-8"');
      }
      assert.equal(bodies[1], bodies[0]);
      assert.equal(bodies[2], bodies[0]);
      assert.equal(t.equalCalls, 3, 'unknown users are compared against a dummy digest too');
    } finally {
      await t.srv.close();
    }
  });
  it('compares the digest through safeEqual', async () => {
    await call(s, {});
    assert.equal(s.equalCalls, 1);
  });
  it('does not burn the nonce of a forged request', async () => {
    const nonce = randomBytes(16).toString('base64url');
    assert.equal((await call(s, { nonce, secret: generateHmacSecret() })).status, 401);
    assert.equal((await call(s, { nonce })).status, 200);
  });
  it('refuses nonces that are not 16-128 URL-safe characters with 401', async () => {
    const date = new Date().toUTCString();
    for (const nonce of ['short', 'x'.repeat(129), 'has.dot.in.it.123456', 'has+plus+in+it+123456']) {
      const r = await fetch(s.srv.url + '/articles', { headers: { authentication: `hmac ann:${nonce}:AAAA`, date } });
      assert.equal(r.status, 401, nonce);
    }
  });
  it('answers 400 (never crashes) on malformed headers', async () => {
    const date = new Date().toUTCString();
    const cases: Record<string, string>[] = [
      { authentication: 'hmac' },
      { authentication: 'hmac ' },
      { authentication: 'hmac ann' },
      { authentication: 'hmac ann:' },
      { authentication: 'hmac :AAAA' },
      { authentication: 'hmac ann:a:b:c' },
      { authentication: 'hmac ann:!!!!' },
      { authentication: 'hmac ann:AAAA extra' },
      { authentication: `hmac ann:${'n'.repeat(20)}:AAAA`, date: 'yesterday' },
      { authentication: `hmac ann:${'n'.repeat(20)}:AAAA`, date: 'Sunday, 06-Nov-94 08:49:37 GMT' },
      { authentication: `hmac ann:${'n'.repeat(20)}:AAAA`, date: 'Mon, 01 Jan 2026 00:00:00 GMT' }, // wrong weekday
      { authentication: 'hmac ann:AAAA', 'content-digest': 'sha-256=abc' },
      { authentication: 'hmac ann:AAAA', 'content-digest': 'md5=:AAAA:' },
    ];
    for (const headers of cases) {
      const r = await fetch(s.srv.url + '/articles', { headers: { date, ...headers } });
      assert.equal(r.status, 400, JSON.stringify(headers));
    }
    const noDate = await fetch(s.srv.url + '/articles', { headers: { authentication: `hmac ann:${'n'.repeat(20)}:AAAA` } });
    assert.equal(noDate.status, 400);
  });
  it('includes development diagnostics in 401s', async () => {
    const r = await call(s, { secret: generateHmacSecret(), target: '/x?y=1' });
    const body = (await r.json()) as { extensions: Record<string, unknown> };
    assert.match(String(body.extensions.stringToSign), /^GET\+\/x\?y=1\+\w{3},\d{2}\w{3}\d{4}\d{2}:\d{2}:\d{2}GMT\+[\w-]+$/);
    assert.equal(typeof body.extensions.receivedDate, 'string');
    assert.equal(typeof body.extensions.serverTime, 'string');
    assert.equal(typeof body.extensions.skewSeconds, 'number');
  });
  it('includes the clock diagnostics in the 401 for a bad nonce, with no string to sign', async () => {
    const date = new Date().toUTCString();
    const r = await fetch(s.srv.url + '/articles', { headers: { authentication: 'hmac ann:short:AAAA', date } });
    assert.equal(r.status, 401);
    const body = (await r.json()) as { extensions: Record<string, unknown> };
    assert.equal(body.extensions.stringToSign, null);
    assert.equal(body.extensions.receivedDate, date);
    assert.equal(typeof body.extensions.serverTime, 'string');
    assert.equal(typeof body.extensions.skewSeconds, 'number');
  });
  it('answers 401 for a nonce with characters outside ASCII, 400 for such a character elsewhere', async () => {
    const date = new Date().toUTCString();
    // fetch refuses such header values; node:http sends them as latin-1, as a client might.
    const status = (authentication: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(s.srv.url + '/articles', { headers: { authentication, date } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
    assert.equal(await status(`hmac ann:${'n'.repeat(15)}\u00e9:AAAA`), 401);
    assert.equal(await status(`hmac \u00e9nn:${'n'.repeat(16)}:AAAA`), 400);
  });
  it('shows the minimal string to sign when development refuses the minimal form for an unsafe method', async () => {
    const t = await setup({ allowMinimalForUnsafe: false });
    try {
      const r = await call(t, { method: 'DELETE', target: '/articles/9?x=1', minimal: true });
      assert.equal(r.status, 401);
      const body = (await r.json()) as { message: string; extensions: Record<string, unknown> };
      assert.match(body.message, /replay-protected/);
      assert.equal(body.extensions.stringToSign, 'DELETE+/articles/9?x=1');
      assert.equal(body.extensions.receivedDate, null);
      assert.equal(typeof body.extensions.serverTime, 'string');
    } finally {
      await t.srv.close();
    }
  });
  it('accepts the minimal form for unsafe methods in development', async () => {
    assert.equal((await call(s, { method: 'POST', minimal: true, body: 'x' })).status, 200);
  });
});

describe('HmacScheme in production', () => {
  let s: Setup;
  before(async () => {
    s = await setup({ production: true });
  });
  after(() => s.srv.close());

  it('refuses the minimal form for unsafe methods but not for GET', async () => {
    assert.equal((await call(s, { method: 'POST', minimal: true, body: 'x' })).status, 401);
    assert.equal((await call(s, { method: 'GET', minimal: true })).status, 200);
  });
  it('never includes diagnostics', async () => {
    const body = (await (await call(s, { secret: generateHmacSecret() })).json()) as { extensions: Record<string, unknown> };
    assert.deepEqual(body.extensions, {});
  });
});

describe('HmacScheme with a failing nonce store', () => {
  it('fails closed with 503 when the store is unreachable', async () => {
    const store = new MemoryAuthStore();
    const s = await setup({ nonces: new StoreNonceStore(store) });
    try {
      assert.equal((await call(s, {})).status, 200);
      store.failNonces = true;
      const r = await call(s, {});
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '5');
      assert.equal((await call(s, { minimal: true })).status, 200, 'the minimal form needs no nonce store');
    } finally {
      await s.srv.close();
    }
  });
  it('fails closed with 503 when a store throws instead of rejecting', async () => {
    const throwing = { consume: (): Promise<boolean> => { throw new Error('store bug'); } };
    const s = await setup({ nonces: throwing });
    try {
      const r = await call(s, {});
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '5');
    } finally {
      await s.srv.close();
    }
  });
  it('fails closed when a memory store is full of live nonces', async () => {
    const s = await setup({ nonces: new MemoryNonceStore({ maxEntries: 1 }) });
    try {
      assert.equal((await call(s, {})).status, 200);
      assert.equal((await call(s, {})).status, 503);
    } finally {
      await s.srv.close();
    }
  });
});

describe('parseImfFixdate', () => {
  it('accepts IMF-fixdate only', () => {
    assert.equal(parseImfFixdate('Sun, 06 Nov 1994 08:49:37 GMT'), 784111777000);
    assert.equal(parseImfFixdate('Sunday, 06-Nov-94 08:49:37 GMT'), undefined);
    assert.equal(parseImfFixdate('Sun Nov  6 08:49:37 1994'), undefined);
    assert.equal(parseImfFixdate('Mon, 06 Nov 1994 08:49:37 GMT'), undefined);
  });
  it('answers a repeated value (remembered) and a different one alike', () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(parseImfFixdate('Sun, 06 Nov 1994 08:49:37 GMT'), 784111777000);
      assert.equal(parseImfFixdate('Sun, 06 Nov 1994 08:49:38 GMT'), 784111778000);
      assert.equal(parseImfFixdate('Mon, 06 Nov 1994 08:49:38 GMT'), undefined, 'an invalid value is never remembered');
      assert.equal(parseImfFixdate('Mon, 06 Nov 1994 08:49:38 GMT'), undefined);
    }
  });
});
