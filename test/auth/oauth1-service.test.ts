/**
 * @module test/auth/oauth1-service — OAuth 1.0a signed requests to the running article service, with
 * clients and token credentials in its own storage (store.oauth1, secrets sealed with its key),
 * signed by the npm `oauth` package: roles, Allow for the caller, body hash, revocation.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from '../helpers/node-test.js';
import { sealConsumerSecret, sealTokenSecret } from '../../src/auth/oauth1/store-credentials.js';
import { SecretBox } from '../../src/auth/secret-box.js';
import { hashToken } from '../../src/auth/tokens.js';
import { send, startTestService, type TestService } from '../helpers/service.js';

const require = createRequire(import.meta.url);
type NodeOAuth = {
  authHeader(url: string, token: string, tokenSecret: string, method: string): string;
  _prepareParameters(token: string, tokenSecret: string, method: string, url: string, extra: Record<string, string>): [string, string][];
  _buildAuthorizationHeaders(params: [string, string][]): string;
};
const { OAuth } = require('oauth') as { OAuth: new (...args: unknown[]) => NodeOAuth };

const XML = '<article><title>Signed</title><price currency="eur">1.00</price></article>';

describe('OAuth 1.0a signed requests to the article service', () => {
  let svc: TestService;
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const consumer = { key: 'printer', secret: 'printer-shared-secret' };
  const tokens: Record<string, { token: string; secret: string }> = {};

  /** Token credentials for `user`, made the way the /oauth1 flow makes them: temporary, approved, exchanged. */
  async function tokenFor(user: string): Promise<{ token: string; secret: string }> {
    const oauth1 = svc.running.store.oauth1;
    const now = Date.now();
    const temporary = hashToken(`temp-${user}`);
    assert.equal(await oauth1.saveTemporaryCredentials({ tokenHash: temporary, sealedSecret: sealTokenSecret(box, temporary, 'ts'), clientId: consumer.key, callback: 'oob', expiresAtMs: now + 60_000 }, now, 10), true);
    assert.equal(await oauth1.approveTemporaryCredentials(temporary, { verifierHash: 'v', userName: user }, now), true);
    const token = `access-${user}-${randomBytes(6).toString('hex')}`;
    const secret = `secret-${user}`;
    const tokenHash = hashToken(token);
    const done = await oauth1.exchangeTemporaryCredentials(temporary, now, () => true, (approved) => ({ tokenHash, sealedSecret: sealTokenSecret(box, tokenHash, secret), clientId: approved.clientId, userName: approved.userName }));
    assert.equal(done.status, 'issued');
    return { token, secret };
  }

  before(async () => {
    svc = await startTestService({ serverKey: key });
    await svc.addUser('ed', 'editor');
    await svc.addUser('rita', 'reader');
    await svc.running.store.oauth1.createConsumer({ clientId: consumer.key, sealedSecret: sealConsumerSecret(box, consumer.key, consumer.secret), rsaPublicKey: null, callbacks: [], userName: null });
    tokens.ed = await tokenFor('ed');
    tokens.rita = await tokenFor('rita');
  });
  after(() => svc.close());

  const client = (method = 'HMAC-SHA1'): NodeOAuth => new OAuth(null, null, consumer.key, consumer.secret, '1.0', null, method);
  const signed = (user: string, method: string, path: string, extra: Record<string, string> = {}): string => {
    const c = client();
    const params = c._prepareParameters(tokens[user]!.token, tokens[user]!.secret, method, svc.base + path, extra);
    return c._buildAuthorizationHeaders(params);
  };

  it('lets an editor\'s token create an article and a reader\'s token only read it', async () => {
    const put = await send(svc.base, 'PUT', '/articles/oauth1', { headers: { authorization: signed('ed', 'PUT', '/articles/oauth1'), 'content-type': 'application/xml' }, body: XML });
    assert.equal(put.status, 201, put.text);
    const read = await send(svc.base, 'GET', '/articles/oauth1', { headers: { authorization: signed('rita', 'GET', '/articles/oauth1') } });
    assert.equal(read.status, 200, read.text);
    const denied = await send(svc.base, 'DELETE', '/articles/oauth1', { headers: { authorization: signed('rita', 'DELETE', '/articles/oauth1') } });
    assert.equal(denied.status, 403, denied.text);
  });
  it('shows the caller\'s Allow: the editor\'s longer than the reader\'s', async () => {
    const ed = await send(svc.base, 'OPTIONS', '/articles', { headers: { authorization: signed('ed', 'OPTIONS', '/articles') } });
    const rita = await send(svc.base, 'OPTIONS', '/articles', { headers: { authorization: signed('rita', 'OPTIONS', '/articles') } });
    assert.equal(ed.headers.allow, 'HEAD, GET, OPTIONS, POST');
    assert.equal(rita.headers.allow, 'HEAD, GET, OPTIONS');
  });
  it('checks an oauth_body_hash on an XML body', async () => {
    const hash = createHash('sha1').update(XML).digest('base64');
    const ok = await send(svc.base, 'PUT', '/articles/hashed', { headers: { authorization: signed('ed', 'PUT', '/articles/hashed', { oauth_body_hash: hash }), 'content-type': 'application/xml' }, body: XML });
    assert.equal(ok.status, 201, ok.text);
    const tampered = await send(svc.base, 'PUT', '/articles/hashed', { headers: { authorization: signed('ed', 'PUT', '/articles/hashed', { oauth_body_hash: hash }), 'content-type': 'application/xml' }, body: XML.replace('1.00', '9.00') });
    assert.equal(tampered.status, 401);
    assert.match(tampered.headers['www-authenticate']!, /OAuth realm="roa"/);
  });
  it('refuses a replayed request and a request also carrying Basic', async () => {
    const auth = signed('rita', 'GET', '/articles');
    assert.equal((await send(svc.base, 'GET', '/articles', { headers: { authorization: auth } })).status, 200);
    assert.equal((await send(svc.base, 'GET', '/articles', { headers: { authorization: auth } })).status, 401);
    const c = client();
    const query = c._prepareParameters(tokens.rita!.token, tokens.rita!.secret, 'GET', `${svc.base}/articles`, {}).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
    const both = await send(svc.base, 'GET', `/articles?${query}`, { headers: { authorization: 'Basic ' + Buffer.from('rita:rita-secret-pw').toString('base64') } });
    assert.equal(both.status, 400, both.text);
  });
  it('lists OAuth among the challenges of a 401', async () => {
    const res = await send(svc.base, 'POST', '/articles', { headers: { 'content-type': 'application/xml' }, body: XML });
    assert.equal(res.status, 401);
    assert.match(res.headers['www-authenticate']!, /OAuth realm="roa"/);
  });
  it('refuses revoked token credentials at once', async () => {
    const revoked = await tokenFor('rita');
    tokens.gone = revoked;
    assert.equal((await send(svc.base, 'GET', '/articles', { headers: { authorization: signed('gone', 'GET', '/articles') } })).status, 200);
    assert.ok((await svc.running.store.oauth1.revokeTokenCredentials({ userName: 'rita' })) >= 1);
    assert.equal((await send(svc.base, 'GET', '/articles', { headers: { authorization: signed('gone', 'GET', '/articles') } })).status, 401);
  });
});
