/** @module test/auth/authenticator */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Authenticator } from '../../src/auth/authenticator.js';
import type { AuthScheme, Caller } from '../../src/auth/scheme.js';
import { HttpError } from '../../src/errors/http-error.js';
import type { Request } from '../../src/http/request.js';

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
});
