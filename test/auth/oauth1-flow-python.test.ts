/**
 * @module test/auth/oauth1-flow-python
 * The OAuth 1.0a three-legged flow driven by Python's requests-oauthlib (test/auth/fixtures/oauth1_client.py),
 * an implementation independent of roa's: HMAC-SHA1, HMAC-SHA256 and RSA-SHA1, with the protocol
 * parameters in the header, the form body and the query; then signed requests to the articles.
 */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { answerApproval, startOAuth1Service, verifierOf, type OAuth1TestService } from './oauth1-flow-helpers.js';

// Debian's interpreter, where python3-requests-oauthlib is installed (not whatever python3 is first on PATH).
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(import.meta.dirname, 'fixtures', 'oauth1_client.py');
const run = promisify(execFile);

const probe = spawnSync(PYTHON, ['-c', 'import requests_oauthlib, oauthlib, cryptography, jwt'], { encoding: 'utf8' });
const skip = skipReason(probe.status === 0, `${PYTHON} with requests-oauthlib, cryptography and PyJWT is needed (apt install python3-requests-oauthlib python3-cryptography python3-jwt): ${probe.stderr?.trim() ?? probe.error?.message}`);

type Place = 'header' | 'body' | 'query';
type Method = 'HMAC-SHA1' | 'HMAC-SHA256' | 'RSA-SHA1' | 'PLAINTEXT';

/** One step of the Python client; its JSON answer. */
async function py(...args: string[]): Promise<Record<string, string | number>> {
  // Asynchronous: the service answering the script runs in this process.
  const { stdout } = await run(PYTHON, [SCRIPT, ...args], { timeout: 60_000 });
  return JSON.parse(stdout) as Record<string, string | number>;
}

describe('OAuth 1.0a flow with Python requests-oauthlib', () => {
  const { it, before, after } = suiteNeeding(skip);
  let svc: OAuth1TestService;
  let dir: string;
  let keyFile: string;
  const secrets: Record<string, string> = {};

  before(async () => {
    svc = await startOAuth1Service();
    await svc.addUser('ann', 'editor', 'ann-password-1');
    dir = mkdtempSync(join(tmpdir(), 'roa-oauth1-'));
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    keyFile = join(dir, 'client.pem');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }));
    secrets.hmac = (await svc.addConsumer('py-hmac', { callbacks: ['http://127.0.0.1:9/callback'] }))!;
    await svc.addConsumer('py-rsa', { secret: null, rsaPublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    secrets.rsa = keyFile;
  });
  after(async () => {
    await svc?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cases: Array<{ key: string; secret: 'hmac' | 'rsa'; method: Method; place: Place; callback: string }> = [
    { key: 'py-hmac', secret: 'hmac', method: 'HMAC-SHA1', place: 'header', callback: 'http://127.0.0.1:9/callback' },
    { key: 'py-hmac', secret: 'hmac', method: 'HMAC-SHA256', place: 'body', callback: 'http://127.0.0.1:9/callback' },
    { key: 'py-rsa', secret: 'rsa', method: 'RSA-SHA1', place: 'query', callback: 'oob' },
  ];

  for (const c of cases) {
    it(`${c.method}, parameters in the ${c.place}: temporary credentials, approval, token credentials, signed PUT and GET`, async () => {
      const base = svc.base;
      const secret = secrets[c.secret]!;
      const temporary = await py('initiate', `${base}/oauth1/initiate`, c.key, secret, c.callback, c.method, c.place);
      assert.equal(temporary.status, 200, String(temporary.body));
      assert.equal(temporary.oauth_callback_confirmed, 'true');
      const answer = await answerApproval(base, String(temporary.oauth_token), 'ann', 'ann-password-1');
      const verifier = verifierOf(answer);
      const token = await py('token', `${base}/oauth1/token`, c.key, secret, String(temporary.oauth_token), String(temporary.oauth_token_secret), verifier, c.method, c.place);
      assert.equal(token.status, 200, String(token.body));

      // The resource requests carry a JSON body, so their parameters go in the header or the query.
      const place = c.place === 'body' ? 'header' : c.place;
      const slug = `py-${c.method.toLowerCase()}-${c.place}`;
      const body = JSON.stringify({ title: `Tea by ${c.method}`, price: { amount: '2.00', currency: 'eur' } });
      const creds = [c.key, secret, String(token.oauth_token), String(token.oauth_token_secret), c.method, place];
      const put = await py('request', 'PUT', `${base}/articles/${slug}?lang=en&x=a+b`, ...creds, body);
      assert.equal(put.status, 201, String(put.body));
      assert.equal((await svc.running.store.getArticleBySlug(slug))?.owner, 'ann');
      const get = await py('request', 'GET', `${base}/articles?limit=5&x=%7Ey`, ...creds);
      assert.equal(get.status, 200, String(get.body));

      // The exchanged temporary credentials are gone.
      const again = await py('token', `${base}/oauth1/token`, c.key, secret, String(temporary.oauth_token), String(temporary.oauth_token_secret), verifier, c.method, c.place);
      assert.equal(again.status, 401);
    });
  }

  it('PLAINTEXT over plain HTTP is refused (400): it would send the secrets as they are', async () => {
    const r = await py('initiate', `${svc.base}/oauth1/initiate`, 'py-hmac', secrets.hmac!, 'http://127.0.0.1:9/callback', 'PLAINTEXT', 'header');
    assert.equal(r.status, 400);
    assert.match(String(r.body), /PLAINTEXT/);
  });

  it('a wrong verifier from Python is refused (401)', async () => {
    const temporary = await py('initiate', `${svc.base}/oauth1/initiate`, 'py-hmac', secrets.hmac!, 'http://127.0.0.1:9/callback', 'HMAC-SHA1', 'header');
    assert.equal(temporary.status, 200, String(temporary.body));
    verifierOf(await answerApproval(svc.base, String(temporary.oauth_token), 'ann', 'ann-password-1'));
    const token = await py('token', `${svc.base}/oauth1/token`, 'py-hmac', secrets.hmac!, String(temporary.oauth_token), String(temporary.oauth_token_secret), 'not-the-verifier', 'HMAC-SHA1', 'header');
    assert.equal(token.status, 401);
  });
});
