/**
 * @module test/regressions/issue-24-auth
 * Issue 24 item 2 (failed-login throttles could be raced, and locked a user out from anywhere) and two
 * of item 3's auth defects (hmac forms could be confused; JWTs kept a demoted role until they expired).
 * Real services on 127.0.0.1 port 0, real HTTP; the Redis cases use the Redis at TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from '../helpers/node-test.js';
import { createClient } from 'redis';
import { sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { signRequest } from '../../src/client/index.js';
import { formatStringToSign } from '../../src/client/string-to-sign.js';
import { redisReachable, skipOrFail, TEST_REDIS_URL } from '../helpers/services.js';
import { send, sendFrom, startTestService, type SimpleResponse, type TestService } from '../helpers/service.js';

const LIMIT = 10;
const XML = '<article><title>Forged</title><price currency="eur">1.00</price></article>';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (user: string, password: string): string => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

/** How many of the answers ran a verification: 401 or 200 (a 429 is answered before any check). */
function verified(responses: SimpleResponse[]): number {
  return responses.filter((r) => r.status === 401 || r.status === 200).length;
}

function statuses(responses: SimpleResponse[]): string {
  const count = new Map<number, number>();
  for (const r of responses) count.set(r.status, (count.get(r.status) ?? 0) + 1);
  return [...count].map(([s, n]) => `${n} x ${s}`).join(', ');
}

/** 200 concurrent guesses at each throttled credential; at most LIMIT of them may be checked. */
function raceSuite(name: string, start: () => Promise<TestService>, cleanup: (tag: string) => Promise<void> = async () => {}): void {
  describe(`issue 24: ${name}: a throttled credential cannot be raced`, () => {
    let svc: TestService;
    const tag = randomBytes(4).toString('hex');
    const clientId = `race-${tag}`;
    const client = generateClientSecret();
    const user = `racer-${tag}`;
    const password = 'racer-password-1';
    before(async () => {
      svc = await start();
      await svc.addUser(user, 'editor', password);
      await svc.running.store.createClient({ clientId, secretHash: client.secretHash, userName: user, scopes: ['articles:read'] });
    });
    after(async () => {
      await svc.close();
      await cleanup(tag);
    });

    it('checks at most the limit of 200 simultaneous Basic guesses; the right one among them is not let through past it', async () => {
      const guesses = Array.from({ length: 200 }, (_, i) => (i === 199 ? password : `wrong-${i}`));
      const answers = await Promise.all(guesses.map((p) => send(svc.base, 'GET', '/articles', { headers: { authorization: basic(user, p) } })));
      assert.ok(verified(answers) <= LIMIT, statuses(answers));
      assert.ok(answers.filter((r) => r.status === 429).length >= 200 - LIMIT, statuses(answers));
      const after = await send(svc.base, 'GET', '/articles', { headers: { authorization: basic(user, password) } });
      assert.equal(after.status, 429, 'the right password waits for the lock like any other guess');
    });

    it('checks at most the limit of 200 simultaneous OAuth client secrets', async () => {
      const secrets = Array.from({ length: 200 }, (_, i) => (i === 199 ? client.clientSecret : `wrong-secret-${i}`));
      const answers = await Promise.all(secrets.map((s) => send(svc.base, 'POST', '/oauth/token', {
        headers: { ...FORM, authorization: basic(clientId, s) },
        body: 'grant_type=client_credentials',
      })));
      assert.ok(verified(answers) <= LIMIT, statuses(answers));
      const after = await send(svc.base, 'POST', '/oauth/token', { headers: { ...FORM, authorization: basic(clientId, client.clientSecret) }, body: 'grant_type=client_credentials' });
      assert.equal(after.status, 429, after.text);
    });

    it('checks at most the limit of 200 simultaneous password-grant guesses', async () => {
      const grantUser = `granted-${tag}`;
      const grantClient = generateClientSecret();
      await svc.addUser(grantUser, 'editor', password);
      await svc.running.store.createClient({ clientId: `grant-${tag}`, secretHash: grantClient.secretHash, userName: grantUser, scopes: ['articles:read'] });
      const guesses = Array.from({ length: 200 }, (_, i) => (i === 199 ? password : `wrong-${i}`));
      const answers = await Promise.all(guesses.map((p) => send(svc.base, 'POST', '/oauth/token', {
        headers: { ...FORM, authorization: basic(`grant-${tag}`, grantClient.clientSecret) },
        body: `grant_type=password&username=${grantUser}&password=${p}`,
      })));
      // The client's own (right) secret is checked once per request; the guessed password at most LIMIT times.
      const checked = answers.filter((r) => r.status === 200 || (r.status === 400 && r.text.includes('invalid_grant')));
      assert.ok(checked.length <= LIMIT, statuses(answers));
    });
  });
}

raceSuite('in memory', () => startTestService());

describe('issue 24: the Redis-backed throttle', async () => {
  const reachable = await redisReachable();
  it('is reachable (else skipped, or failed under CI)', (t: TestContext) => {
    if (!reachable) skipOrFail(t, `Redis not reachable at ${TEST_REDIS_URL}`);
  });
  if (reachable) {
    raceSuite('on Redis', () => startTestService({ redisUrl: TEST_REDIS_URL }), async (tag) => {
      const admin = createClient({ url: TEST_REDIS_URL });
      await admin.connect();
      const keys = await admin.keys(`roa:throttle:*${tag}*`);
      if (keys.length > 0) await admin.del(keys);
      await admin.close();
    });
  }
});

describe('issue 24: guesses from one address do not lock the user out at another', () => {
  let svc: TestService;
  const attacker = '127.0.0.2';
  const owner = '127.0.0.1';
  before(async () => {
    svc = await startTestService();
    await svc.addUser('lou', 'editor', 'lou-password-1');
    await svc.addUser('mia', 'editor', 'mia-password-1');
  });
  after(() => svc.close());

  it('locks the guessing address only: the owner still signs in from hers, the attacker gets 429 even for the right password', async () => {
    for (let n = 0; n < LIMIT; n++) {
      assert.equal((await sendFrom(attacker, svc.base, 'GET', '/articles', { authorization: basic('lou', `guess-${n}`) })).status, 401);
    }
    assert.equal((await sendFrom(attacker, svc.base, 'GET', '/articles', { authorization: basic('lou', 'guess-x') })).status, 429);
    const owners = await sendFrom(owner, svc.base, 'GET', '/articles', { authorization: basic('lou', 'lou-password-1') });
    assert.equal(owners.status, 200, owners.text);
    // The owner's verification is cached now; at the locked address it must not answer for the password.
    const atLocked = await sendFrom(attacker, svc.base, 'GET', '/articles', { authorization: basic('lou', 'lou-password-1') });
    assert.equal(atLocked.status, 429, atLocked.text);
  });

  it('locks the password grant per address too', async () => {
    const c = generateClientSecret();
    await svc.running.store.createClient({ clientId: 'mia-app', secretHash: c.secretHash, userName: 'mia', scopes: ['articles:read'] });
    const grant = (from: string, password: string) => sendFrom(from, svc.base, 'POST', '/oauth/token', { ...FORM, authorization: basic('mia-app', c.clientSecret) }, `grant_type=password&username=mia&password=${password}`);
    for (let n = 0; n < LIMIT; n++) assert.equal((await grant(attacker, `guess-${n}`)).status, 400);
    assert.equal((await grant(attacker, 'mia-password-1')).status, 429);
    const owners = await grant(owner, 'mia-password-1');
    assert.equal(owners.status, 200, owners.text);
  });
});

describe('issue 24: hmac forms cannot be confused', () => {
  let svc: TestService;
  const key = randomBytes(32);
  const secret = 'a-very-long-hmac-secret-for-tests';
  before(async () => {
    // Development: the minimal form is accepted for unsafe methods (as with --hmac-minimal-unsafe on).
    svc = await startTestService({ serverKey: key });
    await svc.addUser('hank', 'editor');
    await svc.running.store.setUserHmacSecret('hank', sealHmacSecret(new SecretBox(key), 'hank', secret));
  });
  after(() => svc.close());
  const mac = (s: string): string => createHmac('sha256', secret).update(s, 'utf8').digest('base64');
  const xml = { 'content-type': 'application/xml' };

  it('refuses a replay-protected signature presented in the minimal form with Date and nonce moved into the target', async () => {
    const date = new Date().toUTCString();
    const nonce = randomBytes(16).toString('base64url');
    const digest = mac(formatStringToSign({ method: 'POST', target: '/articles?client=app', date, nonce }));
    const target = `/articles?client=app+${date.replace(/ /g, '')}+${nonce}`;
    for (let n = 0; n < 3; n++) {
      const res = await send(svc.base, 'POST', target, { headers: { ...xml, authentication: `hmac hank:${digest}` }, body: XML });
      assert.equal(res.status, 401, res.text);
    }
  });

  it('refuses a minimal signature over a body presented without Content-Digest, its digest moved into the target', async () => {
    const honest = signRequest({ method: 'POST', target: '/articles?client=app', body: 'the signed body', user: 'hank', secret, minimal: true });
    const target = `/articles?client=app+${honest['Content-Digest']!}`;
    const res = await send(svc.base, 'POST', target, { headers: { ...xml, authentication: honest.Authentication }, body: XML });
    assert.equal(res.status, 401, res.text);
  });

  it('still accepts honest requests of every form, `+` in the target included', async () => {
    for (const minimal of [true, false]) {
      for (const withBody of [false, true]) {
        const target = `/articles?q=a+b&minimal=${minimal}&body=${withBody}`;
        const headers = signRequest({ method: 'POST', target, user: 'hank', secret, minimal, ...(withBody ? { body: XML } : {}) });
        const res = await send(svc.base, 'POST', target, { headers: { ...xml, ...headers }, body: XML });
        assert.equal(res.status, 201, `minimal=${minimal} body=${withBody}: ${res.text}`);
      }
    }
  });

  it('signRequest refuses a minimal signature over a target shaped like the replay-protected form', () => {
    const target = `/articles?client=app+${new Date().toUTCString().replace(/ /g, '')}+${randomBytes(16).toString('base64url')}`;
    assert.throws(() => signRequest({ method: 'POST', target, user: 'hank', secret, minimal: true }), TypeError);
  });
});

describe('issue 24: a JWT acts with the role its user has now', () => {
  let svc: TestService;
  const dir = mkdtempSync(join(tmpdir(), 'roa-jwt-role-'));
  let client: { id: string; secret: string };
  before(async () => {
    svc = await startTestService({ tokenFormat: 'jwt', jwtKeyFile: join(dir, 'jwt.json') });
    await svc.addUser('jed', 'editor', 'jed-password-1');
    const c = generateClientSecret();
    await svc.running.store.createClient({ clientId: 'jed-app', secretHash: c.secretHash, userName: 'jed', scopes: ['articles:read', 'articles:write'] });
    client = { id: 'jed-app', secret: c.clientSecret };
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a write within about a second after the user was demoted to reader, and any request once he is removed', async () => {
    const grant = await send(svc.base, 'POST', '/oauth/token', {
      headers: { ...FORM, authorization: basic(client.id, client.secret) },
      body: 'grant_type=password&username=jed&password=jed-password-1',
    });
    assert.equal(grant.status, 200, grant.text);
    const bearer = `Bearer ${(JSON.parse(grant.text) as { access_token: string }).access_token}`;
    const write = (slug: string) => send(svc.base, 'PUT', `/articles/${slug}`, { headers: { authorization: bearer, 'content-type': 'application/xml' }, body: XML });
    assert.equal((await write('before')).status, 201);
    await svc.running.store.setUserRole('jed', 'reader');
    // The record cache keeps a user for at most a second (RECORD_TTL_MS); wait well past it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const demoted = await write('after');
    assert.equal(demoted.status, 403, demoted.text);
    assert.equal((await send(svc.base, 'GET', '/articles/before', { headers: { authorization: bearer } })).status, 200, 'a reader still reads');
    await svc.running.store.removeUser('jed');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await send(svc.base, 'GET', '/articles/before', { headers: { authorization: bearer } })).status, 401, 'a removed user reads no more');
  });
});
