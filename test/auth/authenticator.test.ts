/** @module test/auth/authenticator */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { randomBytes } from 'node:crypto';
import { Authenticator } from '../../src/auth/authenticator.js';
import { HmacScheme } from '../../src/auth/hmac.js';
import { MemoryNonceStore } from '../../src/auth/memory-nonce-store.js';
import { CALLER_KEY, type AuthScheme, type Caller } from '../../src/auth/scheme.js';
import { generateHmacSecret, sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';
import { signRequest } from '../../src/client/index.js';
import { HttpError } from '../../src/errors/http-error.js';
import type { Request } from '../../src/http/request.js';
import { MemoryAuthStore } from './memory-store.js';

function fakeScheme(name: string, result: Caller | HttpError): AuthScheme & { calls: number } {
  return {
    name,
    calls: 0,
    challenge: () => `${name} realm="roa"`,
    matches: (req) => (req.headers.authorization ?? '').startsWith(name + ' '),
    async authenticate() {
      this.calls++;
      if (result instanceof HttpError) throw result;
      return result;
    },
  };
}

const req = (authorization?: string): Request => ({ headers: authorization ? { authorization } : {}, locals: {} }) as unknown as Request;
const ann: Caller = { name: 'ann', role: 'reader', scopes: null, scheme: 'basic' };

describe('Authenticator', () => {
  it('refuses Authorization and Authentication together with 400, before any scheme runs', async () => {
    const basic = fakeScheme('Basic', ann);
    const a = new Authenticator([basic]);
    const both = { headers: { authorization: 'Basic x', authentication: 'hmac ann:AAAA' }, locals: {} } as unknown as Request;
    await assert.rejects(a.authenticate(both), (e: HttpError) => e.status === 400 && e.code === 'ROA_ERR_MALFORMED_CREDENTIALS');
    assert.equal(basic.calls, 0);
  });

  it('is anonymous without credentials', async () => {
    const a = new Authenticator([fakeScheme('Basic', ann)]);
    assert.equal(await a.authenticate(req()), undefined);
  });
  it('resolves with the matching scheme and caches the caller on req.locals', async () => {
    const basic = fakeScheme('Basic', ann);
    const a = new Authenticator([fakeScheme('Bearer', ann), basic]);
    const r = req('Basic x');
    assert.equal(await a.authenticate(r), ann);
    assert.equal(await a.authenticate(r), ann);
    assert.equal(basic.calls, 1);
    assert.equal(r.locals.caller, ann);
  });
  it('puts every challenge on a 401, the failing scheme first', async () => {
    const bearerErr = new HttpError(401, 'bad', { headers: { 'WWW-Authenticate': 'Bearer realm="roa", error="invalid_token"' } });
    const a = new Authenticator([fakeScheme('Basic', ann), fakeScheme('Bearer', bearerErr), fakeScheme('hmac', ann)]);
    await assert.rejects(a.authenticate(req('Bearer t')), (e: HttpError) => {
      assert.equal(e.status, 401);
      assert.equal(e.headers['WWW-Authenticate'], 'Bearer realm="roa", error="invalid_token", Basic realm="roa", hmac realm="roa"');
      return true;
    });
  });
  it('passes 400 and 503 through untouched', async () => {
    const a = new Authenticator([fakeScheme('Basic', new HttpError(400, 'malformed'))]);
    await assert.rejects(a.authenticate(req('Basic x')), (e: HttpError) => e.status === 400 && e.headers['WWW-Authenticate'] === undefined);
  });
  it('answers 401 for credentials of a scheme it does not run', async () => {
    const a = new Authenticator([fakeScheme('Basic', ann)]);
    await assert.rejects(a.authenticate(req('Negotiate abc')), (e: HttpError) => e.status === 401 && e.headers['WWW-Authenticate'] === 'Basic realm="roa"');
  });
  it('refuses a scheme registered twice', () => {
    assert.throws(() => new Authenticator([fakeScheme('Basic', ann), fakeScheme('basic', ann)]), /twice/);
  });
});

describe('Authenticator middleware', () => {
  it('required() refuses anonymous requests with every challenge; middleware() lets them through', async () => {
    const a = new Authenticator([fakeScheme('Basic', ann), fakeScheme('Bearer', ann)]);
    const run = (mw: ReturnType<Authenticator['middleware']>, r: Request) =>
      new Promise<unknown>((resolve) => mw(r, undefined as never, (err?: unknown) => resolve(err)));
    const err = (await run(a.required(), req())) as HttpError;
    assert.equal(err.status, 401);
    assert.equal(err.headers['WWW-Authenticate'], 'Basic realm="roa", Bearer realm="roa"');
    assert.equal(await run(a.required(), req('Basic x')), undefined);
    assert.equal(await run(a.middleware(), req()), undefined);
  });

  it('middleware() waits on a scheme that answers with a promise: caches the caller, or passes the refusal with every challenge', async () => {
    const bearer = fakeScheme('Bearer', new HttpError(401, 'expired', { headers: { 'WWW-Authenticate': 'Bearer realm="roa", error="invalid_token"' } }));
    const a = new Authenticator([fakeScheme('Basic', ann), bearer]);
    const run = (r: Request) => new Promise<unknown>((resolve) => a.middleware()(r, undefined as never, (err?: unknown) => resolve(err)));
    const accepted = req('Basic x');
    assert.equal(await run(accepted), undefined);
    assert.deepEqual(accepted.locals[CALLER_KEY], ann);
    const refused = req('Bearer y');
    const err = (await run(refused)) as HttpError;
    assert.equal(err.status, 401);
    assert.equal(err.headers['WWW-Authenticate'], 'Bearer realm="roa", error="invalid_token", Basic realm="roa"');
    assert.equal(refused.locals[CALLER_KEY], undefined);
    // A second pass reads the cached caller: the scheme is not asked again.
    const basicCalls = (a.schemes[0] as ReturnType<typeof fakeScheme>).calls;
    assert.equal(await run(accepted), undefined);
    assert.equal((a.schemes[0] as ReturnType<typeof fakeScheme>).calls, basicCalls);
  });
});

describe('Authenticator without a promise (hot path)', () => {
  const box = new SecretBox(randomBytes(32));
  const secret = generateHmacSecret();
  async function hmacSetup() {
    const store = new MemoryAuthStore();
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'x', hmacSecret: sealHmacSecret(box, 'ann', secret) });
    const hmac = new HmacScheme({ store, box, nonces: new MemoryNonceStore(), production: true });
    const auth = new Authenticator([fakeScheme('Basic', ann), hmac]);
    const signed = (sig: { minimal?: boolean; secret?: string } = {}): Request => {
      const h = signRequest({ method: 'GET', target: '/a', user: 'ann', secret: sig.secret ?? secret, minimal: sig.minimal ?? true });
      const headers: Record<string, string> = { authentication: h.Authentication };
      if (h.Date !== undefined) headers.date = h.Date;
      return { method: 'GET', url: '/a', originalUrl: '/a', headers, locals: {} } as unknown as Request;
    };
    return { hmac, auth, signed };
  }

  it('answers a cached hmac minimal caller as a value, the first (record read) and nonce forms as promises', async () => {
    const { auth, signed } = await hmacSetup();
    const first = auth.resolve(signed());
    assert.ok(first instanceof Promise, 'the record is read first');
    assert.equal((await first)?.name, 'ann');
    const again = auth.resolve(signed());
    assert.ok(!(again instanceof Promise));
    assert.deepEqual(again, { name: 'ann', role: 'editor', scopes: null, scheme: 'hmac' });
    const withNonce = auth.resolve(signed({ minimal: false }));
    assert.ok(withNonce instanceof Promise, 'a nonce is recorded asynchronously');
    assert.equal((await withNonce)?.name, 'ann');
  });

  it('throws a synchronous refusal with every challenge, and the public methods still reject', async () => {
    const { hmac, auth, signed } = await hmacSetup();
    await auth.resolve(signed());
    const bad = signed({ secret: generateHmacSecret() });
    assert.throws(() => auth.resolve(bad), (e: HttpError) => e.status === 401 && e.headers['WWW-Authenticate'] === 'hmac realm="roa", Basic realm="roa"');
    // authenticate() keeps its promise contract, for the Authenticator and the scheme alike.
    const viaAuth = auth.authenticate(signed({ secret: generateHmacSecret() }));
    assert.ok(viaAuth instanceof Promise);
    await assert.rejects(viaAuth, (e: HttpError) => e.status === 401);
    const malformed = { method: 'GET', url: '/a', headers: { authentication: 'hmac nope' }, locals: {} } as unknown as Request;
    const viaScheme = hmac.authenticate(malformed);
    assert.ok(viaScheme instanceof Promise);
    await assert.rejects(viaScheme, (e: HttpError) => e.status === 400);
  });

  it('middleware() calls next at once for a synchronous answer, with the error for a refusal', async () => {
    const { auth, signed } = await hmacSetup();
    await auth.resolve(signed());
    const mw = auth.middleware();
    const calls: unknown[] = [];
    mw(signed(), {} as never, (err?: unknown) => calls.push(err));
    assert.equal(calls.length, 1, 'next ran before middleware() returned');
    assert.equal(calls[0], undefined);
    mw(signed({ secret: generateHmacSecret() }), {} as never, (err?: unknown) => calls.push(err));
    assert.equal((calls[1] as HttpError).status, 401);
    const required = auth.required();
    required(req(), {} as never, (err?: unknown) => calls.push(err));
    assert.equal((calls[2] as HttpError).status, 401);
  });
});
