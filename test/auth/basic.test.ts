/** @module test/auth/basic */
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { Authenticator } from '../../src/auth/authenticator.js';
import { BasicScheme, parseBasic } from '../../src/auth/basic.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { safeEqual } from '../../src/auth/safe-equal.js';
import { FailureThrottle } from '../../src/auth/throttle.js';
import type { HttpError } from '../../src/errors/http-error.js';
import type { Request } from '../../src/http/request.js';
import { MemoryAuthStore } from './memory-store.js';
import { serve, type TestServer } from './server.js';

const FAST = { N: 1024, r: 8, p: 1 };
const basic = (s: string) => 'Basic ' + Buffer.from(s, 'utf8').toString('base64');

describe('parseBasic', () => {
  it('decodes user-id and password (password may contain colons)', () => {
    assert.deepEqual(parseBasic(basic('ann:pa:ss')), { userId: 'ann', password: 'pa:ss' });
    assert.deepEqual(parseBasic('basic   ' + Buffer.from('ann:').toString('base64')), { userId: 'ann', password: '' });
  });
  it('ignores other schemes', () => {
    assert.equal(parseBasic('Bearer abc'), undefined);
    assert.equal(parseBasic(undefined), undefined);
  });
  it('throws 400 on malformed credentials', () => {
    const bad = ['Basic', 'Basic ', 'Basic !!!', 'Basic YWJj', basic('nocolon'), basic(':pw'), basic('a:b\u0001'),
      'Basic ' + Buffer.from([0x61, 0x3a, 0xff]).toString('base64'), 'Basic YW5uOnB3=', 'Basic YW5u OnB3'];
    for (const h of bad) assert.throws(() => parseBasic(h), (e: { status: number }) => e.status === 400, h);
  });
});

describe('BasicScheme', () => {
  let store: MemoryAuthStore;
  let srv: TestServer;
  let equalCalls = 0;
  let clock = 1_000_000;
  let scheme: BasicScheme;

  before(async () => {
    store = new MemoryAuthStore();
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('s3cret', FAST) });
    scheme = new BasicScheme({ store, now: () => clock, safeEqual: (a, b) => (equalCalls++, safeEqual(a, b)) });
    const auth = new Authenticator([scheme]);
    srv = await serve(async (req, res) => {
      const caller = await auth.authenticate(req);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(caller ?? null));
    });
  });
  after(() => srv.close());

  const get = (authorization?: string) => fetch(srv.url + '/', { headers: authorization ? { authorization } : {} });

  it('resolves the caller with unrestricted scopes', async () => {
    const r = await get(basic('ann:s3cret'));
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { name: 'ann', role: 'editor', scopes: null, scheme: 'basic' });
  });
  it('is anonymous without credentials', async () => {
    const r = await get();
    assert.equal(r.status, 200);
    assert.equal(await r.json(), null);
  });
  it('answers a wrong password and an unknown user identically (401 with challenge)', async () => {
    const a = await get(basic('ann:wrong'));
    const b = await get(basic('bob:s3cret'));
    assert.equal(a.status, 401);
    assert.equal(b.status, 401);
    assert.equal(a.headers.get('www-authenticate'), 'Basic realm="roa", charset="UTF-8"');
    assert.equal(b.headers.get('www-authenticate'), a.headers.get('www-authenticate'));
    assert.deepEqual(await a.json(), await b.json());
  });
  it('answers 400 for malformed credentials without crashing', async () => {
    for (const h of ['Basic', 'Basic ###', basic('nocolon')]) assert.equal((await get(h)).status, 400, h);
  });
  it('answers 401 for an unsupported scheme', async () => {
    const r = await get('Digest username="ann"');
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Basic/);
  });
  it('answers a cached verification without a promise; authenticate() still returns one', async () => {
    scheme.clearCache();
    const r = { headers: { authorization: basic('ann:s3cret') }, locals: {} } as never;
    const first = scheme.authenticateNow(r);
    assert.ok(first instanceof Promise, 'the first use reads the record and runs scrypt');
    assert.equal((await first).name, 'ann');
    const again = scheme.authenticateNow(r);
    assert.ok(!(again instanceof Promise));
    assert.deepEqual(again, { name: 'ann', role: 'editor', scopes: null, scheme: 'basic' });
    assert.ok(scheme.authenticate(r) instanceof Promise);
    assert.throws(() => scheme.authenticateNow({ headers: { authorization: 'Basic ###' }, locals: {} } as never), (e: { status: number }) => e.status === 400);
    const wrong = scheme.authenticateNow({ headers: { authorization: basic('ann:wrong') }, locals: {} } as never);
    assert.ok(wrong instanceof Promise, 'an unverified password goes to scrypt');
    await assert.rejects(wrong, (e: { status: number }) => e.status === 401);
  });
  it('compares through safeEqual', async () => {
    scheme.clearCache();
    equalCalls = 0;
    await get(basic('ann:s3cret'));
    assert.equal(equalCalls, 1);
  });
  it('serves repeat requests from the cache, and re-verifies after expiry', async () => {
    scheme.clearCache();
    equalCalls = 0;
    await get(basic('ann:s3cret'));
    await get(basic('ann:s3cret'));
    assert.equal(equalCalls, 1);
    clock += 61_000;
    await get(basic('ann:s3cret'));
    assert.equal(equalCalls, 2);
  });
  it('invalidates the cache when the stored hash changes (seen within the 1 s record window)', async () => {
    await get(basic('ann:s3cret'));
    store.users.get('ann')!.passwordHash = await hashPassword('n3w', FAST);
    clock += 1_001;
    assert.equal((await get(basic('ann:s3cret'))).status, 401);
    assert.equal((await get(basic('ann:n3w'))).status, 200);
  });
  it('bounds the cache size', async () => {
    await store.createUser({ name: 'cy', role: 'reader', passwordHash: await hashPassword('pw', FAST) });
    const small = new BasicScheme({ store, cacheMaxEntries: 1 });
    await small.authenticate({ headers: { authorization: basic('ann:n3w') } } as never);
    await small.authenticate({ headers: { authorization: basic('cy:pw') } } as never);
    assert.equal((small as unknown as { cache: Map<string, unknown> }).cache.size, 1);
  });
});

describe('BasicScheme with a failure throttle', () => {
  const req = (authorization: string) => ({ headers: { authorization }, locals: {} }) as unknown as Request;

  async function setup() {
    const store = new MemoryAuthStore();
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('s3cret', FAST) });
    await store.createUser({ name: 'bo', role: 'reader', passwordHash: await hashPassword('b0-pass', FAST) });
    const counter = { equalCalls: 0 };
    const scheme = new BasicScheme({
      store,
      throttle: new FailureThrottle({ limit: 3, windowMs: 60_000 }),
      safeEqual: (a, b) => (counter.equalCalls++, safeEqual(a, b)),
    });
    return { scheme, counter };
  }

  it('answers 429 + Retry-After past the limit, before any password check, and only for that user', async () => {
    const { scheme, counter } = await setup();
    for (let i = 0; i < 3; i++) await assert.rejects(scheme.authenticate(req(basic('ann:wrong'))), (e: HttpError) => e.status === 401);
    const checked = counter.equalCalls;
    await assert.rejects(scheme.authenticate(req(basic('ann:s3cret'))), (e: HttpError) => e.status === 429 && Number(e.headers['Retry-After']) > 0);
    assert.equal(counter.equalCalls, checked, 'no scrypt run while throttled');
    assert.equal((await scheme.authenticate(req(basic('bo:b0-pass')))).name, 'bo');
  });

  it('gives no answer but 429 to a locked-out user, even for a password verified and cached before the lock', async () => {
    const { scheme, counter } = await setup();
    assert.equal((await scheme.authenticate(req(basic('ann:s3cret')))).name, 'ann');
    assert.equal((await scheme.authenticate(req(basic('bo:b0-pass')))).name, 'bo');
    const cachedRun = counter.equalCalls;
    assert.equal((await scheme.authenticate(req(basic('ann:s3cret')))).name, 'ann');
    assert.equal(counter.equalCalls, cachedRun, 'served from the cache before any failure');
    for (let i = 0; i < 3; i++) await assert.rejects(scheme.authenticate(req(basic(`ann:guess-${i}`))), (e: HttpError) => e.status === 401);
    // Locked: the right password and a wrong one get the same answer, so the lock is no oracle.
    for (const password of ['s3cret', 'guess-9', 's3cret']) {
      await assert.rejects(scheme.authenticate(req(basic(`ann:${password}`))), (e: HttpError) => e.status === 429, password);
    }
    // Another user's cached verification stays.
    const before = counter.equalCalls;
    assert.equal((await scheme.authenticate(req(basic('bo:b0-pass')))).name, 'bo');
    assert.equal(counter.equalCalls, before);
  });

  it('drops a cached verification when a failure counted elsewhere locks the user (shared throttle)', async () => {
    const store = new MemoryAuthStore();
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('s3cret', FAST) });
    const throttle = new FailureThrottle({ limit: 2, windowMs: 60_000 });
    const scheme = new BasicScheme({ store, throttle });
    assert.equal((await scheme.authenticate(req(basic('ann:s3cret')))).name, 'ann');
    // Another instance (or the password grant) counts the attempts on the shared throttle.
    assert.equal(await throttle.attempt('user:ann', 'unknown'), 0);
    assert.equal(await throttle.attempt('user:ann', 'unknown'), 0);
    // The first guess here reaches the throttle and clears the cache; the right password then gets 429 too.
    await assert.rejects(scheme.authenticate(req(basic('ann:guess'))), (e: HttpError) => e.status === 429);
    await assert.rejects(scheme.authenticate(req(basic('ann:s3cret'))), (e: HttpError) => e.status === 429);
  });

  it('gives back only its own attempt once the password verifies, never the failures before it (issue 24)', async () => {
    const { scheme } = await setup();
    for (let i = 0; i < 2; i++) await assert.rejects(scheme.authenticate(req(basic('ann:wrong'))), (e: HttpError) => e.status === 401);
    assert.equal((await scheme.authenticate(req(basic('ann:s3cret')))).name, 'ann');
    // Two failures still count: one more is checked, the next is throttled.
    await assert.rejects(scheme.authenticate(req(basic('ann:wrong'))), (e: HttpError) => e.status === 401);
    await assert.rejects(scheme.authenticate(req(basic('ann:wrong-again'))), (e: HttpError) => e.status === 429);
  });

  it('checks at most the limit of 200 concurrent guesses, the right one among them included (issue 24)', async () => {
    const { scheme, counter } = await setup();
    const guesses = Array.from({ length: 200 }, (_, i) => (i % 50 === 49 ? 's3cret' : `guess-${i}`));
    const outcomes = await Promise.allSettled(guesses.map((p) => scheme.authenticate(req(basic(`ann:${p}`)))));
    assert.ok(counter.equalCalls <= 3, `${counter.equalCalls} passwords checked`);
    const throttled = outcomes.filter((o) => o.status === 'rejected' && (o.reason as HttpError).status === 429).length;
    assert.ok(throttled >= 200 - 3, `${throttled} throttled`);
  });

  it('shares one count and one check among identical attempts in flight, so a burst of right passwords is not throttled', async () => {
    const { scheme, counter } = await setup();
    const callers = await Promise.all(Array.from({ length: 50 }, () => scheme.authenticate(req(basic('ann:s3cret')))));
    assert.ok(callers.every((c) => c.name === 'ann'));
    assert.equal(counter.equalCalls, 1);
  });

  it('locks a user at the guessing address only (issue 24)', async () => {
    const { scheme } = await setup();
    // The scheme counts per `req.ip`, the client's address (the socket's here: no proxy is trusted).
    const from = (address: string, authorization: string) => ({ headers: { authorization }, locals: {}, ip: address, socket: { remoteAddress: address } }) as unknown as Request;
    for (let i = 0; i < 3; i++) await assert.rejects(scheme.authenticate(from('192.0.2.1', basic(`ann:guess-${i}`))), (e: HttpError) => e.status === 401);
    await assert.rejects(scheme.authenticate(from('192.0.2.1', basic('ann:s3cret'))), (e: HttpError) => e.status === 429);
    assert.equal((await scheme.authenticate(from('198.51.100.7', basic('ann:s3cret')))).name, 'ann');
    // The cached verification from the other address is no oracle at the locked one.
    await assert.rejects(scheme.authenticate(from('192.0.2.1', basic('ann:s3cret'))), (e: HttpError) => e.status === 429);
    // IPv4-mapped IPv6 is the same source as its IPv4 address.
    await assert.rejects(scheme.authenticate(from('::ffff:192.0.2.1', basic('ann:s3cret'))), (e: HttpError) => e.status === 429);
  });
});
