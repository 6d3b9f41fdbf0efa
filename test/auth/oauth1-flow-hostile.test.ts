/**
 * @module test/auth/oauth1-flow-hostile
 * Hostile input to each OAuth 1.0a provider endpoint: malformed headers, huge parameters,
 * duplicates, misplaced parameters, bad percent-encoding, cross-site posts. Each gets a clear 4xx,
 * and nothing is stored: the credential tables are counted through a second connection to the file.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { oauth1Signature, oauthEncode, signatureBaseString, type OAuth1Param } from '../../src/auth/oauth1/index.js';
import { send, type SimpleResponse } from '../helpers/service.js';
import { answerApproval, flowOf, startOAuth1Service, type OAuth1TestService } from './oauth1-flow-helpers.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

interface SignOptions {
  method?: string;
  /** Path and query, as sent. */
  target: string;
  oauth: Record<string, string>;
  /** Form body (signed when form-encoded). */
  body?: string;
  token?: { token: string; secret: string };
  consumerSecret: string;
}

/** An `Authorization: OAuth …` header signed with HMAC-SHA1 over the request as it will be sent. */
function signedHeader(base: string, o: SignOptions): string {
  const url = new URL(o.target, base);
  const oauth: Record<string, string> = {
    oauth_consumer_key: 'hostile', oauth_signature_method: 'HMAC-SHA1', oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_nonce: randomBytes(12).toString('hex'), oauth_version: '1.0', ...(o.token ? { oauth_token: o.token.token } : {}), ...o.oauth,
  };
  const params: OAuth1Param[] = Object.entries(oauth).map(([name, value]) => ({ name, value }));
  for (const [name, value] of url.searchParams) params.push({ name, value });
  if (o.body !== undefined) for (const [name, value] of new URLSearchParams(o.body)) params.push({ name, value });
  const signature = oauth1Signature('HMAC-SHA1', signatureBaseString(o.method ?? 'POST', url.origin + url.pathname, params), { consumerSecret: o.consumerSecret, tokenSecret: o.token?.secret });
  return 'OAuth ' + Object.entries({ ...oauth, oauth_signature: signature }).map(([k, v]) => `${oauthEncode(k)}="${oauthEncode(v)}"`).join(', ');
}

describe('OAuth 1.0a endpoints under hostile input', () => {
  let svc: OAuth1TestService;
  let dir: string;
  let db: Database.Database;
  let secret: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'roa-oauth1-hostile-'));
    const file = join(dir, 'roa.db');
    svc = await startOAuth1Service({ db: file });
    await svc.addUser('ann', 'editor', 'ann-password-1');
    secret = (await svc.addConsumer('hostile'))!;
    db = new Database(file, { readonly: true });
  });
  after(async () => {
    db?.close();
    await svc?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function stored(): { temporary: number; approved: number; tokens: number } {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      temporary: n('SELECT count(*) AS n FROM oauth1_temporary_credentials'),
      approved: n('SELECT count(*) AS n FROM oauth1_temporary_credentials WHERE verifier_hash IS NOT NULL'),
      tokens: n('SELECT count(*) AS n FROM oauth1_token_credentials'),
    };
  }

  /** Sends `request`, checks the status (and that it is a 4xx), and that nothing was stored. */
  async function refused(status: number, request: () => Promise<SimpleResponse>): Promise<SimpleResponse> {
    const before = stored();
    const r = await request();
    assert.equal(r.status, status, r.text.slice(0, 400));
    assert.deepEqual(stored(), before, 'nothing stored');
    return r;
  }

  async function temporaryCredentials(): Promise<{ token: string; secret: string }> {
    const r = await send(svc.base, 'POST', '/oauth1/initiate', { headers: { Authorization: signedHeader(svc.base, { target: '/oauth1/initiate', oauth: { oauth_callback: 'oob' }, consumerSecret: secret }) } });
    assert.equal(r.status, 200, r.text);
    const p = new URLSearchParams(r.text);
    return { token: p.get('oauth_token')!, secret: p.get('oauth_token_secret')! };
  }

  it('a validly signed initiate works, so the refusals below are about their input', async () => {
    const before = stored().temporary;
    await temporaryCredentials();
    assert.equal(stored().temporary, before + 1);
  });

  it('initiate: malformed and oversized headers, duplicates, parameters in two places, bad encoding', async () => {
    const post = (headers: Record<string, string>, target = '/oauth1/initiate', body?: string) => () => send(svc.base, 'POST', target, { headers, ...(body !== undefined ? { body } : {}) });
    const ok = signedHeader(svc.base, { target: '/oauth1/initiate', oauth: { oauth_callback: 'oob' }, consumerSecret: secret });
    await refused(400, post({}));
    await refused(400, post({ Authorization: 'OAuth garbage' }));
    await refused(400, post({ Authorization: 'OAuth oauth_consumer_key=hostile' }));
    await refused(400, post({ Authorization: ok.replace('oauth_version="1.0"', 'oauth_version="1.0", oauth_nonce="again"') }));
    await refused(400, post({ Authorization: ok.replace('oauth_version="1.0"', 'oauth_version="%zz"') }));
    await refused(400, post({ Authorization: ok.replace('oauth_version="1.0"', 'oauth_version="%C3%28"') }));
    await refused(400, post({ Authorization: ok }, '/oauth1/initiate?oauth_callback=oob'));
    await refused(400, post({ Authorization: ok.replace('HMAC-SHA1', 'MD5-LOL') }));
    await refused(431, post({ Authorization: ok + ', x="' + 'a'.repeat(9000) + '"' }));
    // Node's own header limit answers 431 before roa sees the request.
    const huge = await send(svc.base, 'POST', '/oauth1/initiate', { headers: { Authorization: 'OAuth ' + 'a'.repeat(20_000) } }).catch(() => ({ status: 431, headers: {}, text: '' }));
    assert.equal(huge.status, 431);
    await refused(400, post({ ...FORM }, '/oauth1/initiate', `${'a=1&'.repeat(1200)}oauth_callback=oob`));
    await refused(413, post({ ...FORM }, '/oauth1/initiate', `oauth_callback=oob&big=${'x'.repeat(200 * 1024)}`));
  });

  it('initiate: a signed request without a callback, with a huge one, or with a token is refused', async () => {
    const header = (oauth: Record<string, string>) => ({ Authorization: signedHeader(svc.base, { target: '/oauth1/initiate', oauth, consumerSecret: secret }) });
    await refused(400, () => send(svc.base, 'POST', '/oauth1/initiate', { headers: header({}) }));
    await refused(400, () => send(svc.base, 'POST', '/oauth1/initiate', { headers: header({ oauth_callback: 'https://x.example/' + 'a'.repeat(5000) }) }));
    await refused(400, () => send(svc.base, 'POST', '/oauth1/initiate', { headers: header({ oauth_callback: 'oob', oauth_token: 'sneaky' }) }));
    // Signed properly, then replayed: the nonce is spent.
    const h = header({ oauth_callback: 'oob' });
    assert.equal((await send(svc.base, 'POST', '/oauth1/initiate', { headers: h })).status, 200);
    await refused(401, () => send(svc.base, 'POST', '/oauth1/initiate', { headers: h }));
  });

  it('token: missing or duplicated verifier, unknown token, foreign client; the temporary credentials survive a malformed request', async () => {
    const t = await temporaryCredentials();
    const body = (fields: string) => ({ headers: { ...FORM, Authorization: signedHeader(svc.base, { target: '/oauth1/token', oauth: {}, token: t, body: fields, consumerSecret: secret }) }, body: fields });
    await refused(400, () => send(svc.base, 'POST', '/oauth1/token', body('')));
    await refused(400, () => send(svc.base, 'POST', '/oauth1/token', body('oauth_verifier=a&oauth_verifier=b')));
    await refused(400, () => send(svc.base, 'POST', '/oauth1/token', body('oauth_verifier=%zz')));
    await refused(400, () => send(svc.base, 'POST', '/oauth1/token', { headers: { Authorization: signedHeader(svc.base, { target: '/oauth1/token', oauth: { oauth_verifier: 'v' }, consumerSecret: secret }) } }));
    const unknown = { token: 'unknown-token', secret: 'x' };
    await refused(401, () => send(svc.base, 'POST', '/oauth1/token', { headers: { Authorization: signedHeader(svc.base, { target: '/oauth1/token', oauth: { oauth_verifier: 'v' }, token: unknown, consumerSecret: secret }) } }));
    // Approved, then exchanged by another client with its own secret: refused, and these credentials stay usable.
    const other = (await svc.addConsumer('other-client'))!;
    const answer = await answerApproval(svc.base, t.token, 'ann', 'ann-password-1');
    const verifier = /<code id="code">([^<]*)</.exec(answer.text)![1]!;
    await refused(401, () => send(svc.base, 'POST', '/oauth1/token', {
      headers: { Authorization: signedHeader(svc.base, { target: '/oauth1/token', oauth: { oauth_consumer_key: 'other-client', oauth_verifier: verifier }, token: t, consumerSecret: other }) },
    }));
    const r = await send(svc.base, 'POST', '/oauth1/token', { headers: { Authorization: signedHeader(svc.base, { target: '/oauth1/token', oauth: { oauth_verifier: verifier }, token: t, consumerSecret: secret }) } });
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /^oauth_token=[\w-]+&oauth_token_secret=[\w-]+$/);
  });

  it('authorize: bad encoding, duplicates, huge or missing tokens show an error page (400), never a redirect', async () => {
    for (const query of ['', '?oauth_token=', '?oauth_token=%zz', '?oauth_token=a&oauth_token=b', `?oauth_token=${'a'.repeat(8000)}`, '?oauth_token=%C3%28']) {
      const r = await refused(400, () => send(svc.base, 'GET', `/oauth1/authorize${query}`));
      assert.equal(r.headers.location, undefined);
      assert.match(r.headers['content-type']!, /text\/html/);
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['cache-control'], 'no-store');
    }
  });

  it('authorize: cross-site, malformed, oversized and altered posts approve nothing', async () => {
    const t = await temporaryCredentials();
    const path = `/oauth1/authorize?oauth_token=${t.token}`;
    const page = await send(svc.base, 'GET', path);
    assert.equal(page.status, 200);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(page.headers['content-security-policy']!, /frame-ancestors 'none'/);
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    const flow = flowOf(page.text);
    const form = (fields: Record<string, string>) => new URLSearchParams({ flow, username: 'ann', password: 'ann-password-1', decision: 'approve', ...fields }).toString();
    const post = (headers: Record<string, string>, body: string) => () => send(svc.base, 'POST', path, { headers: { ...FORM, ...headers }, body });
    await refused(403, post({ Origin: 'https://evil.example' }, form({})));
    await refused(403, post({ 'Sec-Fetch-Site': 'cross-site' }, form({})));
    await refused(400, post({}, form({ flow: flow.slice(0, -2) + 'xx' })));
    await refused(400, post({}, form({}) + '&decision=deny'));
    await refused(400, post({}, form({}).replace('decision=approve', 'decision=%zz')));
    await refused(400, post({}, form({ decision: 'maybe' })));
    await refused(413, post({}, form({ padding: 'x'.repeat(20_000) })));
    await refused(415, post({ 'Content-Type': 'application/json' }, '{}'));
    await refused(403, post({}, form({ password: 'wrong' })));
    // Still approvable after all of that.
    const ok = await send(svc.base, 'POST', path, { headers: FORM, body: form({}) });
    assert.equal(ok.status, 200);
    assert.equal(stored().approved >= 1, true);
  });
});

describe('OAuth 1.0a endpoints in production over plain HTTP', () => {
  let svc: OAuth1TestService;
  before(async () => {
    svc = await startOAuth1Service({ env: 'production' });
  });
  after(() => svc?.close());

  it('the sign-in form\'s password and signed requests in the header are refused (403) before anything reads them', async () => {
    const form = await send(svc.base, 'POST', '/oauth1/authorize?oauth_token=x', { headers: FORM, body: 'username=ann&password=pw&decision=approve&flow=x' });
    assert.equal(form.status, 403);
    assert.match(form.text, /ROA_ERR_TLS_REQUIRED/);
    const signed = await send(svc.base, 'POST', '/oauth1/initiate', { headers: { Authorization: 'OAuth oauth_consumer_key="k"' } });
    assert.equal(signed.status, 403);
    assert.match(signed.text, /ROA_ERR_TLS_REQUIRED/);
  });
});
