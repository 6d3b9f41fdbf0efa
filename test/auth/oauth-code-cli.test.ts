/**
 * @module test/auth/oauth-code-cli
 * `roa client add --public --redirect-uri …` and `roa serve --password-grant` as a user runs them
 * (the built dist/cli.js).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from '../helpers/node-test.js';
import { roa } from '../helpers/roa-cli.js';
import { openStore } from '../../src/storage/open-store.js';

describe('roa client add for the code flow', () => {
  let dir: string;
  let db: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'roa-code-cli-'));
    db = join(dir, 'roa.db');
    assert.equal(roa(['user', 'add', 'ann', '--role', 'editor', '--password', 'ann-password-long', '--db', db]).status, 0);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('registers a public client with its redirect URIs and prints no secret', async () => {
    const r = roa(['client', 'add', 'native', '--user', 'ann', '--public', '--redirect-uri', 'http://127.0.0.1/cb', '--redirect-uri', 'com.example.app:/cb', '--db', db]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /added public client native/);
    assert.doesNotMatch(r.stdout, /client_secret/);
    const store = await openStore(db);
    try {
      assert.equal((await store.getClient('native'))?.secretHash, '');
      assert.deepEqual(await store.oauth2.redirectUris('native'), ['http://127.0.0.1/cb', 'com.example.app:/cb']);
    } finally {
      await store.close();
    }
  });

  it('registers a confidential client with a redirect URI and a printed secret', () => {
    const r = roa(['client', 'add', 'web', '--user', 'ann', '--redirect-uri', 'https://web.example/cb', '--db', db]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /client_secret: \S{43}/);
  });

  it('shows a client: public or confidential, its user, scopes and redirect URIs; an unknown id fails', () => {
    const pub = roa(['client', 'add', 'shown-app', '--user', 'ann', '--public', '--scopes', 'articles:read', '--redirect-uri', 'http://127.0.0.1/cb', '--redirect-uri', 'com.example.app:/cb', '--db', db]);
    assert.equal(pub.status, 0, pub.stderr);
    const shown = roa(['client', 'show', 'shown-app', '--db', db]);
    assert.equal(shown.status, 0, shown.stderr);
    const lines = shown.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1), ['client_id: shown-app', 'type: public', 'user: ann', 'scopes: articles:read', 'redirect_uri: http://127.0.0.1/cb', 'redirect_uri: com.example.app:/cb']);
    assert.match(lines.at(-1)!, /^created: \d{4}-\d\d-\d\dT/);
    const conf = roa(['client', 'add', 'shown-web', '--user', 'ann', '--redirect-uri', 'https://web.example/cb', '--db', db]);
    assert.equal(conf.status, 0, conf.stderr);
    const web = roa(['client', 'show', 'shown-web', '--db', db]);
    assert.match(web.stdout, /^type: confidential$/m);
    assert.match(web.stdout, /^redirect_uri: https:\/\/web\.example\/cb$/m);
    assert.doesNotMatch(web.stdout, /secret|\$scrypt/i, 'no secret or hash is shown');
    const missing = roa(['client', 'show', 'no-such-client', '--db', db]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no client 'no-such-client'/);
  });

  it('refuses redirect URIs that cannot be registered, and a public client without one or with a secret', () => {
    for (const [args, message] of [
      [['--redirect-uri', 'http://app.example/cb'], /plain http only for loopback/],
      [['--redirect-uri', 'https://app.example/cb#x'], /fragment/],
      [['--redirect-uri', 'cb'], /absolute/],
      [['--redirect-uri', 'javascript:alert(1)'], /javascript/],
      [['--redirect-uri', 'myapp:/cb'], /reverse domain/],
      [['--public'], /needs at least one --redirect-uri/],
      [['--public', '--secret', 'a-long-enough-secret-1234', '--redirect-uri', 'https://a.example/cb'], /no --secret/],
    ] as Array<[string[], RegExp]>) {
      const r = roa(['client', 'add', 'bad', '--user', 'ann', ...args, '--db', db]);
      assert.equal(r.status, 1, args.join(' '));
      assert.match(r.stderr, message);
    }
  });
});

describe('roa serve --password-grant', () => {
  it('stops start-up in production when the grant is on without --password-grant-clients', () => {
    const r = roa(['serve', '--env', 'production', '--password-grant', 'on', '--port', '0', '--gateway-port', '0', '--db', ':memory:'], { ROA_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'), LOG_LEVEL: 'silent' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /--password-grant-clients/);
  });
});
