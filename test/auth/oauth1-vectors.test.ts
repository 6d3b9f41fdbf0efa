/** @module test/auth/oauth1-vectors — RFC 5849's own examples (§1.2, §3.4.1), the three signature methods, and independent signers. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { after, before, describe, it } from '../helpers/node-test.js';
import { normalizeParameters, signatureBaseString } from '../../src/auth/oauth1/base-string.js';
import { oauth1Signature } from '../../src/auth/oauth1/signature.js';
import { opensslAvailable } from '../helpers/tls.js';
import { authorizationOf, send, signParams, startHarness, type Harness } from './oauth1-harness.js';

const require = createRequire(import.meta.url);
// The npm `oauth` package (node-oauth): an independent signer.
const { OAuth } = require('oauth') as { OAuth: new (...args: unknown[]) => { authHeader(url: string, token: string, tokenSecret: string, method: string): string } };

// RFC 5849 §1.2: printer.example.com's credentials at photos.example.net.
const CONSUMER = { key: 'dpf43f3p2l4k3l03', secret: 'kd94hf93k423kf44' };
const TEMPORARY = { token: 'hh5s93j4hdidpola', secret: 'hdhd0244k9j7ao03' };
const ACCESS = { token: 'nnch734d00sl2jdk', secret: 'pfkkdhi9sl3r4s00' };
const RESOURCE_BASE_STRING =
  'GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3DchapoH%26' +
  'oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131202%26oauth_token%3Dnnch734d00sl2jdk%26size%3Doriginal';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PUBLIC_PEM = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const RSA_PRIVATE_PEM = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

describe('RFC 5849 §1.2 example', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await h.users.createUser({ name: 'jane', role: 'editor', passwordHash: 'x' });
    h.credentials.consumers.set(CONSUMER.key, { key: CONSUMER.key, secret: CONSUMER.secret, rsaPublicKey: RSA_PUBLIC_PEM, callbacks: ['http://printer.example.com/ready'] });
    h.credentials.temporary.set(TEMPORARY.token, { secret: TEMPORARY.secret, consumerKey: CONSUMER.key });
    h.credentials.accessTokens.set(ACCESS.token, { secret: ACCESS.secret, consumerKey: CONSUMER.key, userName: 'jane' });
  });
  after(() => h.close());

  it('PLAINTEXT: the temporary credentials request as printed, over TLS (a trusted proxy says https)', async () => {
    h.clock.now = 137131200_000;
    const r = await send(h, 'POST', '/verify-initiate', {
      host: 'photos.example.net',
      'x-forwarded-proto': 'https',
      authorization: 'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_signature_method="PLAINTEXT", oauth_timestamp="137131200", ' +
        'oauth_nonce="wIjqoS", oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready", oauth_signature="kd94hf93k423kf44%26"',
    });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json(), { consumer: CONSUMER.key, callback: 'http://printer.example.com/ready', place: 'header' });
  });
  it('PLAINTEXT: the token request as printed, with the verifier', async () => {
    h.clock.now = 137131201_000;
    const r = await send(h, 'POST', '/verify-token', {
      host: 'photos.example.net',
      'x-forwarded-proto': 'https',
      authorization: 'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="hh5s93j4hdidpola", oauth_signature_method="PLAINTEXT", ' +
        'oauth_timestamp="137131201", oauth_nonce="walatlh", oauth_verifier="hfdp7dh39dks9884", oauth_signature="kd94hf93k423kf44%26hdhd0244k9j7ao03"',
    });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json(), { consumer: CONSUMER.key, verifier: 'hfdp7dh39dks9884' });
  });
  it('HMAC-SHA1: the resource request as printed acts for the approving user', async () => {
    h.clock.now = 137131202_000;
    const r = await send(h, 'GET', '/photos?file=vacation.jpg&size=original', {
      host: 'photos.example.net',
      authorization: 'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", ' +
        'oauth_timestamp="137131202", oauth_nonce="chapoH", oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"',
    });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().caller, { name: 'jane', role: 'editor', scopes: null, scheme: 'oauth1', clientId: CONSUMER.key });
  });
  it('HMAC-SHA1: the printed signature is the one over the printed base string', () => {
    assert.equal(oauth1Signature('HMAC-SHA1', RESOURCE_BASE_STRING, { consumerSecret: CONSUMER.secret, tokenSecret: ACCESS.secret }), 'MdpQcU8iPSUjWoN/UDMsK2sui9I=');
  });
  it('RSA-SHA1: the resource request signed with the client key verifies against its registered public key', async () => {
    h.clock.now = 137131202_000;
    const params = signParams({ method: 'GET', url: 'http://photos.example.net/photos?file=vacation.jpg&size=original', consumerKey: CONSUMER.key, token: ACCESS.token, signatureMethod: 'RSA-SHA1', rsaPrivateKey: rsa.privateKey, timestamp: 137131202, nonce: 'rsa-chapoH' });
    const r = await send(h, 'GET', '/photos?file=vacation.jpg&size=original', { host: 'photos.example.net', authorization: authorizationOf(params, 'Photos') });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json().caller?.name, 'jane');
  });
  it('RSA-SHA1: a signature by another key is refused with 401 and the OAuth challenge', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const params = signParams({ method: 'GET', url: 'http://photos.example.net/photos?file=vacation.jpg&size=original', consumerKey: CONSUMER.key, token: ACCESS.token, signatureMethod: 'RSA-SHA1', rsaPrivateKey: other.privateKey, timestamp: 137131202, nonce: 'rsa-other' });
    const r = await send(h, 'GET', '/photos?file=vacation.jpg&size=original', { host: 'photos.example.net', authorization: authorizationOf(params) });
    assert.equal(r.status, 401);
    assert.match(String(r.headers['www-authenticate']), /^OAuth realm="roa"/);
  });
  it('RSA-SHA1: the signature made here verifies with node:crypto and the other way round', () => {
    const mine = oauth1Signature('RSA-SHA1', RESOURCE_BASE_STRING, { rsaPrivateKey: rsa.privateKey });
    assert.ok(verify('RSA-SHA1', Buffer.from(RESOURCE_BASE_STRING), rsa.publicKey, Buffer.from(mine, 'base64')));
  });
  it('RSA-SHA1: the same signature as the openssl command line over the §1.2 base string (PKCS #1 v1.5 is deterministic)', (t) => {
    if (!opensslAvailable()) {
      t.skip('openssl command line not installed');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'roa-oauth1-'));
    try {
      writeFileSync(join(dir, 'key.pem'), RSA_PRIVATE_PEM);
      writeFileSync(join(dir, 'base.txt'), RESOURCE_BASE_STRING);
      const bySsl = execFileSync('openssl', ['dgst', '-sha1', '-sign', 'key.pem', 'base.txt'], { cwd: dir }).toString('base64');
      assert.equal(oauth1Signature('RSA-SHA1', RESOURCE_BASE_STRING, { rsaPrivateKey: RSA_PRIVATE_PEM }), bySsl);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('the signatures of the npm oauth package verify (HMAC-SHA1, HMAC-SHA256, RSA-SHA1)', async () => {
    h.clock.now = Date.now();
    for (const [method, secret] of [['HMAC-SHA1', CONSUMER.secret], ['HMAC-SHA256', CONSUMER.secret], ['RSA-SHA1', RSA_PRIVATE_PEM]] as const) {
      const client = new OAuth(null, null, CONSUMER.key, secret, '1.0', null, method);
      const url = `http://127.0.0.1:${h.port}/photos?file=vacation%20photo.jpg&size=original&note=a%2Bb%21`;
      const r = await fetch(url, { headers: { authorization: client.authHeader(url, ACCESS.token, ACCESS.secret, 'GET') } });
      assert.equal(r.status, 200, `${method}: ${await r.clone().text()}`);
      assert.equal(((await r.json()) as { caller: { name: string } }).caller.name, 'jane');
    }
  });
});

describe('RFC 5849 §3.4.1 base string example', () => {
  let h: Harness;
  const path = '/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b';
  const body = 'c2&a3=2+q';
  const header = (signature: string): string =>
    'OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", oauth_token="kkk9d7dh3k39sjv7", oauth_signature_method="HMAC-SHA1", ' +
    `oauth_timestamp="137131201", oauth_nonce="7d8f3e4a", oauth_signature="${signature}"`;
  const expected =
    'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26' +
    'oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7';
  before(async () => {
    h = await startHarness();
    h.clock.now = 137131201_000;
    await h.users.createUser({ name: 'ex', role: 'reader', passwordHash: 'x' });
    h.credentials.consumers.set('9djdj82h48djs9d2', { key: '9djdj82h48djs9d2', secret: 'j49sk3j29djd', rsaPublicKey: undefined, callbacks: [] });
    h.credentials.accessTokens.set('kkk9d7dh3k39sjv7', { secret: 'dh893hdasih9', consumerKey: '9djdj82h48djs9d2', userName: 'ex' });
  });
  after(() => h.close());

  it('builds the printed base string from the header, query and form body (the RFC printed signature does not match it)', async () => {
    const r = await send(h, 'POST', path, { host: 'example.com', 'content-type': 'application/x-www-form-urlencoded', authorization: header('bYT5CMsGcbgUdFHObYMEfcx6bsw%3D') }, body);
    assert.equal(r.status, 401);
    assert.equal((r.json() as { baseString?: string }).baseString, expected);
  });
  it('accepts the corrected signature r6/TJjbCOr97/+UU0NsvSne7s5g=, and the form still reaches the body parser', async () => {
    const r = await send(h, 'POST', path, { host: 'example.com', 'content-type': 'application/x-www-form-urlencoded', authorization: header('r6%2FTJjbCOr97%2F%2BUU0NsvSne7s5g%3D') }, body);
    assert.equal(r.status, 200, r.body);
    const out = r.json();
    assert.equal(out.caller?.name, 'ex');
    assert.deepEqual(out.body, { c2: '', a3: '2 q' });
  });
  it('the pure functions give the same string', () => {
    const params = [
      { name: 'b5', value: '=%3D' }, { name: 'a3', value: 'a' }, { name: 'c@', value: '' }, { name: 'a2', value: 'r b' },
      { name: 'oauth_consumer_key', value: '9djdj82h48djs9d2' }, { name: 'oauth_token', value: 'kkk9d7dh3k39sjv7' },
      { name: 'oauth_signature_method', value: 'HMAC-SHA1' }, { name: 'oauth_timestamp', value: '137131201' }, { name: 'oauth_nonce', value: '7d8f3e4a' },
      { name: 'c2', value: '' }, { name: 'a3', value: '2 q' }, { name: 'oauth_signature', value: 'ignored' },
    ];
    assert.equal(signatureBaseString('post', 'http://example.com/request', params), expected);
    assert.equal(normalizeParameters(params).startsWith('a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2='), true);
  });
});
