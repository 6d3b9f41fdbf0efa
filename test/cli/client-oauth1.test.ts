/**
 * @module test/cli/client-oauth1
 * `roa client add --oauth1`, `list`, `revoke`, `remove` and `roa user password` with OAuth 1.0a
 * clients, run as the built command against a database a running `roa serve` uses; the flow in
 * between is the npm `oauth` client's.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuth } from 'oauth';
import { roa, roaRunning, stop } from '../helpers/roa-cli.js';
import { answerApproval, verifierOf } from '../auth/oauth1-flow-helpers.js';

const SERVICE_READY = /service on http:\/\/127\.0\.0\.1:(\d+)/;
const CALLBACK = 'https://printer.example/ready';

describe('roa client with OAuth 1.0a clients', () => {
  let dir: string;
  let db: string;
  let env: Record<string, string>;
  let serve: ChildProcess | undefined;
  let base: string;

  const cli = (...args: string[]) => roa([...args, '--db', db], env);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'roa-cli-oauth1-'));
    db = join(dir, 'roa.db');
    env = { ROA_SECRET_KEY: randomBytes(32).toString('base64') };
    assert.equal(cli('user', 'add', 'ann', '--role', 'editor', '--password', 'ann-password-1').status, 0);
    const started = await roaRunning(['serve', '--port', '0', '--gateway-port', '0', '--db', db, '--log-level', 'silent'], SERVICE_READY, env);
    serve = started.child;
    base = `http://127.0.0.1:${SERVICE_READY.exec(started.output())![1]}`;
  });
  after(async () => {
    if (serve) await stop(serve);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The flow with the npm client; the token credentials. */
  async function tokenFor(secret: string): Promise<{ oauth: OAuth; token: string; secret: string }> {
    const oauth = new OAuth(`${base}/oauth1/initiate`, `${base}/oauth1/token`, 'printer', secret, '1.0', CALLBACK, 'HMAC-SHA1');
    const temporary = await new Promise<{ token: string; secret: string }>((resolve, reject) =>
      oauth.getOAuthRequestToken((err, token, tokenSecret) => (err ? reject(new Error(JSON.stringify(err))) : resolve({ token, secret: tokenSecret }))));
    const verifier = verifierOf(await answerApproval(base, temporary.token, 'ann', 'ann-password-1'));
    const credentials = await new Promise<{ token: string; secret: string }>((resolve, reject) =>
      oauth.getOAuthAccessToken(temporary.token, temporary.secret, verifier, (err, token, tokenSecret) => (err ? reject(new Error(JSON.stringify(err))) : resolve({ token, secret: tokenSecret }))));
    return { oauth, ...credentials };
  }

  function statusOfGet(c: { oauth: OAuth; token: string; secret: string }): Promise<number> {
    return new Promise((resolve) => c.oauth.get(`${base}/articles`, c.token, c.secret, (err, _data, res) => resolve(err ? err.statusCode : res!.statusCode!)));
  }

  it('registers, lists, revokes and removes an OAuth 1 client the running service uses', async () => {
    const added = cli('client', 'add', 'printer', '--oauth1', '--callback', CALLBACK, '--callback', 'oob');
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /added OAuth 1 client printer \(HMAC-SHA1, HMAC-SHA256, PLAINTEXT; callbacks: https:\/\/printer\.example\/ready oob\)/);
    const secret = /client_secret: (\S+)/.exec(added.stdout)![1]!;
    assert.ok(secret.length >= 43);
    assert.match(cli('client', 'list').stdout, /^printer\toauth1\t-\thttps:\/\/printer\.example\/ready oob$/m);
    const shown = cli('client', 'show', 'printer');
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /^client_id: printer\ntype: oauth1\nuser: -\nsignature_methods: HMAC-SHA1 HMAC-SHA256 PLAINTEXT\ncallback: https:\/\/printer\.example\/ready\ncallback: oob\ncreated: \d{4}-/);
    assert.doesNotMatch(shown.stdout, new RegExp(secret), 'the secret is printed once, at registration');

    const first = await tokenFor(secret);
    assert.equal(await statusOfGet(first), 200);
    const revoked = cli('client', 'revoke', 'printer');
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.match(revoked.stdout, /^1 OAuth 1 token credential of printer revoked$/m);
    assert.equal(await statusOfGet(first), 401, 'revocation takes effect at once');

    const second = await tokenFor(secret);
    assert.equal(await statusOfGet(second), 200);
    const password = cli('user', 'password', 'ann', '--password', 'ann-password-2');
    assert.equal(password.status, 0, password.stderr);
    assert.match(password.stdout, /1 OAuth token revoked/);
    assert.equal(await statusOfGet(second), 401, 'a new password revokes OAuth 1 token credentials');
    assert.equal(cli('user', 'password', 'ann', '--password', 'ann-password-1').status, 0);

    const third = await tokenFor(secret);
    assert.equal(cli('client', 'remove', 'printer').status, 0);
    assert.doesNotMatch(cli('client', 'list').stdout, /printer/);
    assert.equal(await statusOfGet(third), 401, 'removing the client removes its credentials');
    assert.equal(cli('client', 'revoke', 'printer').status, 1);
  });

  it('registers an RSA-only client: no shared secret is made', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = join(dir, 'rsa.pub.pem');
    writeFileSync(pem, publicKey.export({ type: 'spki', format: 'pem' }));
    const added = cli('client', 'add', 'rsa-app', '--oauth1', '--rsa-public-key', pem);
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /\(RSA-SHA1; callbacks: any\)/);
    assert.doesNotMatch(added.stdout, /client_secret/);
    assert.match(cli('client', 'list').stdout, /^rsa-app\toauth1\t-\t\*$/m);
    assert.match(cli('client', 'show', 'rsa-app').stdout, /^signature_methods: RSA-SHA1\ncallback: \* \(any absolute URI, or oob\)$/m);
  });

  it('refuses bad registrations with a clear message and exit status 1', () => {
    const notRsa = join(dir, 'not-a-key.pem');
    writeFileSync(notRsa, 'hello');
    const cases: Array<[string[], RegExp]> = [
      [['client', 'add', 'bad1', '--oauth1', '--callback', 'javascript:alert(1)'], /javascript: scheme cannot be a callback/],
      [['client', 'add', 'bad2', '--oauth1', '--callback', 'relative/cb'], /absolute URI or "oob"/],
      [['client', 'add', 'bad3', '--oauth1', '--rsa-public-key', notRsa], /no RSA public key/],
      [['client', 'add', 'bad4', '--oauth1', '--scopes', 'articles:read'], /--scopes is for OAuth 2 clients/],
      [['client', 'add', 'bad5', '--callback', CALLBACK, '--user', 'ann'], /add --oauth1/],
      [['client', 'add', 'bad6', '--oauth1', '--user', 'nobody'], /nobody/],
      [['client', 'add', 'bad7'], /--user/],
    ];
    for (const [args, message] of cases) {
      const r = cli(...args);
      assert.equal(r.status, 1, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
    }
    assert.equal(cli('client', 'add', 'shared-id', '--user', 'ann').status, 0);
    const clash = cli('client', 'add', 'shared-id', '--oauth1');
    assert.equal(clash.status, 1);
    assert.match(clash.stderr, /already exists/);
    assert.equal(cli('client', 'add', 'one-id', '--oauth1').status, 0);
    assert.match(cli('client', 'add', 'one-id', '--user', 'ann').stderr, /an OAuth 1 client named 'one-id' exists/);
    assert.match(cli('client', 'revoke', 'shared-id').stderr, /OAuth 2 client/);
  });
});
