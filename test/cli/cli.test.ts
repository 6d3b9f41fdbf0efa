import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from '../helpers/node-test.js';
import Database from 'better-sqlite3';
import { signRequest } from '../../src/client/index.js';
import { openStore } from '../../src/storage/open-store.js';
import { send } from '../helpers/service.js';
import { roa, roaRunning, stop } from '../helpers/roa-cli.js';

const SERVICE_READY = /service on http:\/\/127\.0\.0\.1:(\d+)/;

/** `roa serve` on free ports (gateway off, logs silent) over `db` with `args`; resolves with the child and the service's base URL. */
async function roaServe(db: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const { child, output } = await roaRunning(['serve', '--port', '0', '--gateway-port', '0', '--db', db, '--log-level', 'silent', ...args], SERVICE_READY, env);
  return { child, base: `http://127.0.0.1:${SERVICE_READY.exec(output())![1]}` };
}

/** `roa serve` with `args` that must refuse to start: its result (in-memory database, free ports). */
function roaServeRefused(args: string[], env: Record<string, string> = {}) {
  return roa(['serve', '--port', '0', '--gateway-port', '0', '--db', ':memory:', ...args], env);
}

/** `roa user add` with a generated HMAC secret; answers the secret, printed once. */
/** The headers `roa sign` printed (one `Name: value` a line), lower-cased names, over `base`. */
function signedHeaders(stdout: string, base: Record<string, string> = {}): Record<string, string> {
  const headers = { ...base };
  for (const line of stdout.trim().split('\n')) {
    const colon = line.indexOf(': ');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 2);
  }
  return headers;
}

function addHmacUser(name: string, role: string, keyFile: string, db: string): string {
  const added = roa(['user', 'add', name, '--role', role, '--hmac-secret', '--secret-key-file', keyFile, '--db', db]);
  assert.equal(added.status, 0, added.stderr);
  return /hmac secret: (\S+)/.exec(added.stdout)![1]!;
}


function freePortServer(): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer((_req, res) => res.end('taken'));
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

describe('roa CLI', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'roa-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the package version with --version', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const r = roa(['--version']);
    assert.equal(r.status, 0);
    assert.equal(r.stdout.trim(), pkg.version);
  });

  it('lists its commands with --help', () => {
    const r = roa(['--help']);
    assert.equal(r.status, 0);
    for (const cmd of ['serve', 'gateway', 'user']) assert.match(r.stdout, new RegExp(`\\b${cmd}\\b`));
  });

  it('exits 1 with a clear error for an unknown flag', () => {
    const r = roa(['serve', '--no-such-flag']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unknown option '--no-such-flag'/);
  });

  it('exits 1 with one line when the port is taken', async () => {
    const taken = await freePortServer();
    const port = (taken.address() as AddressInfo).port;
    const r = roa(['serve', '--port', String(port), '--gateway-port', '0', '--db', ':memory:']);
    taken.close();
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`roa: port ${port} on 127.0.0.1 is already in use`));
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('exits 1 with one line when the database is unreachable', () => {
    const r = roa(['serve', '--port', '0', '--gateway-port', '0', '--db', 'postgres://roa:pw@127.0.0.1:1/none']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^roa: .*PostgreSQL/);
    assert.doesNotMatch(r.stderr, /pw/);
  });

  it('exits 1 with one line when the database path is unwritable', () => {
    const r = roa(['serve', '--port', '0', '--gateway-port', '0', '--db', '/proc/roa-nope/roa.db']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^roa: /);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it("changes a running service's user: the new password and role hold within a second, the old password no longer", async () => {
    const db = join(dir, 'change.db');
    assert.equal(roa(['user', 'add', 'cleo', '--role', 'reader', '--password', 'cleo-old-password', '--db', db]).status, 0);
    assert.equal(roa(['client', 'add', 'cleo-app', '--user', 'cleo', '--secret', 'cleo-app-secret-0123456789', '--db', db]).status, 0);
    const { child, base } = await roaServe(db);
    const options = (password: string) => send(base, 'OPTIONS', '/articles', { headers: { authorization: `Basic ${Buffer.from(`cleo:${password}`).toString('base64')}` } });
    try {
      assert.equal((await options('cleo-old-password')).headers.allow, 'HEAD, GET, OPTIONS');
      const issued = await send(base, 'POST', '/oauth/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('cleo-app:cleo-app-secret-0123456789').toString('base64')}` },
        body: 'grant_type=password&username=cleo&password=cleo-old-password',
      });
      assert.equal(issued.status, 200, issued.text);
      const bearer = { authorization: `Bearer ${(JSON.parse(issued.text) as { access_token: string }).access_token}` };
      assert.equal((await send(base, 'GET', '/articles', { headers: bearer })).status, 200);
      const changed = roa(['user', 'password', 'cleo', '--db', db]);
      assert.equal(changed.status, 0, changed.stderr);
      assert.match(changed.stdout, /2 OAuth tokens revoked/);
      assert.equal((await send(base, 'GET', '/articles', { headers: bearer })).status, 401, 'a new password ends the old grants');
      const password = /password: (\S+)/.exec(changed.stdout)![1]!;
      const promoted = roa(['user', 'role', 'cleo', 'editor', '--db', db]);
      assert.equal(promoted.status, 0, promoted.stderr);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await options('cleo-old-password')).status, 401);
      const now = await options(password);
      assert.equal(now.status, 200);
      assert.equal(now.headers.allow, 'HEAD, GET, OPTIONS, POST', 'an editor may POST to the collection');
    } finally {
      await stop(child);
    }
    assert.equal(roa(['user', 'role', 'cleo', 'owner', '--db', db]).status, 1);
    assert.equal(roa(['user', 'role', 'nobody', 'admin', '--db', db]).status, 1);
    assert.equal(roa(['user', 'password', 'nobody', '--password', 'x-long-enough', '--db', db]).status, 1);
    assert.doesNotMatch(roa(['user', 'password', 'cleo', '--password', 'given-password', '--db', db]).stdout, /password:/);
  });

  it('adds, lists and removes users; prints a generated password once', () => {
    const db = join(dir, 'users.db');
    const added = roa(['user', 'add', 'alice', '--role', 'editor', '--db', db]);
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /password: \S{16,}/);
    const given = roa(['user', 'add', 'bob', '--role', 'admin', '--password', 'correct horse', '--db', db]);
    assert.equal(given.status, 0);
    assert.doesNotMatch(given.stdout, /password:/);
    const dup = roa(['user', 'add', 'bob', '--role', 'admin', '--db', db]);
    assert.equal(dup.status, 1);
    const badRole = roa(['user', 'add', 'carol', '--role', 'owner', '--db', db]);
    assert.equal(badRole.status, 1);
    assert.match(badRole.stderr, /--role must be one of reader, editor, admin/);
    const list = roa(['user', 'list', '--db', db]);
    assert.match(list.stdout, /^alice\teditor/m);
    assert.match(list.stdout, /^bob\tadmin/m);
    assert.equal(roa(['user', 'remove', 'alice', '--db', db]).status, 0);
    assert.doesNotMatch(roa(['user', 'list', '--db', db]).stdout, /alice/);
    assert.equal(roa(['user', 'remove', 'alice', '--db', db]).status, 1);
  });

  it('serves articles with the caching gateway in front (roa serve)', async () => {
    const db = join(dir, 'serve.db');
    const { child, base } = await roaServe(db);
    try {
      const res = await send(base, 'GET', '/articles');
      assert.equal(res.status, 200);
      assert.match(res.text, /^<articles>/);
    } finally {
      await stop(child);
    }
  });

  it('runs the gateway alone in front of any origin (roa gateway --upstream)', async () => {
    let hits = 0;
    const origin = createServer((req, res) => {
      hits++;
      res.setHeader('Cache-Control', 'public, max-age=60');
      res.end(`origin saw ${req.method} ${req.url}`);
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const upstream = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const { child, output } = await roaRunning(['gateway', '--upstream', upstream, '--port', '0'], /roa gateway on http:\/\/127\.0\.0\.1:(\d+)/);
    try {
      const port = /roa gateway on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())![1];
      const base = `http://127.0.0.1:${port}`;
      const first = await send(base, 'GET', '/a%2Fb?x=1&y=%20');
      assert.equal(first.text, 'origin saw GET /a%2Fb?x=1&y=%20');
      assert.equal(first.headers['x-cache'], 'MISS');
      const second = await send(base, 'GET', '/a%2Fb?x=1&y=%20');
      assert.equal(second.headers['x-cache'], 'HIT');
      assert.equal(hits, 1);
      const post = await send(base, 'POST', '/a%2Fb?x=1&y=%20', { body: 'x' });
      assert.equal(post.text, 'origin saw POST /a%2Fb?x=1&y=%20');
      assert.equal(hits, 2);
    } finally {
      await stop(child);
      origin.close();
    }
  });

  it('gives a user an HMAC secret, registers a client, and signs requests curl can send', async () => {
    const db = join(dir, 'auth.db');
    const keyFile = join(dir, 'secret.key');
    const secret = addHmacUser('hana', 'editor', keyFile, db);
    assert.ok(secret.length >= 32);
    const client = roa(['client', 'add', 'hana-app', '--user', 'hana', '--scopes', 'articles:read', '--db', db]);
    assert.equal(client.status, 0, client.stderr);
    assert.match(client.stdout, /client_secret: \S{32,}/);
    assert.equal(roa(['client', 'add', 'ghost-app', '--user', 'nobody', '--db', db]).status, 1);
    const { child, base } = await roaServe(db, ['--secret-key-file', keyFile]);
    try {
      const body = '<article><title>CLI</title><price currency="eur">2.00</price></article>';
      const signed = roa(['sign', '--user', 'hana', '--secret', secret, '--body', body, 'PUT', '/articles/from-cli']);
      assert.equal(signed.status, 0, signed.stderr);
      const headers = signedHeaders(signed.stdout, { 'content-type': 'application/xml' });
      assert.match(headers.authentication!, /^hmac hana:[A-Za-z0-9_-]{16,}:/);
      assert.ok(headers.date && headers['content-digest']);
      const res = await send(base, 'PUT', '/articles/from-cli', { headers, body });
      assert.equal(res.status, 201, res.text);
      const tampered = await send(base, 'PUT', '/articles/from-cli', { headers, body: body.replace('2.00', '3.00') });
      assert.ok(tampered.status === 400 || tampered.status === 401);
    } finally {
      await stop(child);
    }
  });

  it('refuses an empty, whitespace-only or shorter-than-8-character --password (user add and user password)', () => {
    const db = join(dir, 'short-passwords.db');
    for (const bad of ['', '   ', '\t\n', 'x', 'pw', '1234567', 'é'.repeat(7)]) {
      for (const args of [['user', 'add', 'weak', '--role', 'editor', '--password', bad], ['user', 'password', 'weak', '--password', bad]]) {
        const refused = roa([...args, '--db', db]);
        assert.equal(refused.status, 1, `${args[1]} accepted ${JSON.stringify(bad)}`);
        assert.match(refused.stderr, /--password must (not be empty|be at least 8 characters)/);
        if (bad.trim() !== '') assert.ok(!refused.stderr.includes(bad), 'a refused password is never echoed');
      }
    }
    assert.doesNotMatch(roa(['user', 'list', '--db', db]).stdout, /weak/, 'nothing was added');
    const ok = roa(['user', 'add', 'weak', '--role', 'editor', '--password', 'ab cd ef', '--db', db]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(roa(['user', 'password', 'weak', '--password', 'héllo wö', '--db', db]).status, 0, 'eight code points suffice');
    assert.equal(roa(['user', 'password', 'weak', '--password', 'short', '--db', db]).status, 1);
  });

  it('accepts a short chosen secret with a warning on stderr, and refuses an empty one', async () => {
    const db = join(dir, 'short-secrets.db');
    const keyFile = join(dir, 'short-secrets.key');
    const user = roa(['user', 'add', 'sid', '--role', 'editor', '--password', 'sid-password', '--hmac-secret', 'hmacpw', '--secret-key-file', keyFile, '--db', db]);
    assert.equal(user.status, 0, user.stderr);
    assert.match(user.stderr, /warning: --hmac-secret is shorter than 16 characters/);
    assert.doesNotMatch(user.stdout + user.stderr, /hmacpw/, 'a chosen secret is never echoed');
    const client = roa(['client', 'add', 'sid-app', '--user', 'sid', '--secret', 'appsecret', '--db', db]);
    assert.equal(client.status, 0, client.stderr);
    assert.match(client.stderr, /warning: --secret is shorter than 16 characters/);
    const long = roa(['client', 'add', 'sid-app2', '--user', 'sid', '--secret', 's'.repeat(16), '--db', db]);
    assert.equal(long.status, 0, long.stderr);
    assert.equal(long.stderr, '');
    for (const args of [
      ['client', 'add', 'sid-app3', '--user', 'sid', '--secret', ''],
      ['user', 'hmac', 'sid', '--secret', '', '--secret-key-file', keyFile],
    ]) {
      const refused = roa([...args, '--db', db]);
      assert.equal(refused.status, 1, args.join(' '));
      assert.match(refused.stderr, /must not be empty/);
    }
    const { child, base } = await roaServe(db, ['--secret-key-file', keyFile]);
    try {
      const body = '<article><title>Short</title><price currency="eur">1.00</price></article>';
      const signed = roa(['sign', '--user', 'sid', '--secret', 'hmacpw', '--body', body, 'PUT', '/articles/short-secret']);
      assert.equal(signed.status, 0, signed.stderr);
      const headers = signedHeaders(signed.stdout, { 'content-type': 'application/xml' });
      const put = await send(base, 'PUT', '/articles/short-secret', { headers, body });
      assert.equal(put.status, 201, put.text);
      const token = await send(base, 'POST', '/oauth/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('sid-app:appsecret').toString('base64')}` },
        body: 'grant_type=client_credentials',
      });
      assert.equal(token.status, 200, token.text);
    } finally {
      await stop(child);
    }
  });

  it('takes the accepted clock skew of signed requests from --hmac-clock-skew (seconds)', async () => {
    const db = join(dir, 'skew.db');
    const keyFile = join(dir, 'skew.key');
    const secret = addHmacUser('sven', 'reader', keyFile, db);
    const { child, base } = await roaServe(db, ['--secret-key-file', keyFile, '--hmac-clock-skew', '60']);
    try {
      const signedAgo = (seconds: number) => ({ ...signRequest({ method: 'GET', target: '/articles', user: 'sven', secret, date: new Date(Date.now() - seconds * 1000) }) } as Record<string, string>);
      assert.equal((await send(base, 'GET', '/articles', { headers: signedAgo(20) })).status, 200);
      // Two minutes old: inside the 10-minute default, outside the 60 s configured here.
      const stale = await send(base, 'GET', '/articles', { headers: signedAgo(120) });
      assert.equal(stale.status, 401, stale.text);
      assert.match(stale.headers['content-type']!, /application\/problem\+json/);
      const problem = JSON.parse(stale.text) as { detail: string; skewSeconds: number };
      assert.match(problem.detail, /clock skew/);
      assert.ok(problem.skewSeconds >= 119 && problem.skewSeconds <= 125, String(problem.skewSeconds));
    } finally {
      await stop(child);
    }
  });

  it('keeps as many nonces in memory as --nonce-memory says; past it they go to the on-disk table, still refused when replayed', async () => {
    const db = join(dir, 'nonce-memory.db');
    const keyFile = join(dir, 'nonce-memory.key');
    const secret = addHmacUser('nina', 'reader', keyFile, db);
    const { child, base } = await roaServe(db, ['--secret-key-file', keyFile, '--sqlite-nonce-log', '--nonce-memory', '2']);
    try {
      const signed = [1, 2, 3].map(() => ({ ...signRequest({ method: 'GET', target: '/articles', user: 'nina', secret }) }) as Record<string, string>);
      for (const headers of signed) assert.equal((await send(base, 'GET', '/articles', { headers })).status, 200);
      const inDiskTable = new Database(db, { readonly: true });
      try {
        // Two nonces fit in memory; the third went to the key-ordered table.
        assert.equal((inDiskTable.prepare('SELECT count(*) AS n FROM nonces').get() as { n: number }).n, 1);
      } finally {
        inDiskTable.close();
      }
      for (const headers of signed) assert.equal((await send(base, 'GET', '/articles', { headers })).status, 401);
    } finally {
      await stop(child);
    }
  });

  it('issues OAuth tokens with the lives given by --access-token-ttl and --refresh-token-ttl, and enforces them', async () => {
    const db = join(dir, 'ttl.db');
    assert.equal(roa(['user', 'add', 'tove', '--role', 'reader', '--password', 'tove-password-1', '--db', db]).status, 0);
    assert.equal(roa(['client', 'add', 'tove-app', '--user', 'tove', '--secret', 'tove-app-secret-0123456789abcdef', '--db', db]).status, 0);
    const { child, base } = await roaServe(db, ['--access-token-ttl', '1', '--refresh-token-ttl', '1']);
    const tokenRequest = (body: string) => send(base, 'POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('tove-app:tove-app-secret-0123456789abcdef').toString('base64')}` },
      body,
    });
    try {
      const res = await tokenRequest('grant_type=password&username=tove&password=tove-password-1');
      assert.equal(res.status, 200, res.text);
      const token = JSON.parse(res.text) as { access_token: string; expires_in: number; refresh_token: string };
      assert.equal(token.expires_in, 1);
      assert.equal((await send(base, 'GET', '/articles', { headers: { authorization: `Bearer ${token.access_token}` } })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1300));
      const expired = await send(base, 'GET', '/articles', { headers: { authorization: `Bearer ${token.access_token}` } });
      assert.equal(expired.status, 401);
      assert.match(expired.headers['www-authenticate']!, /error="invalid_token"/);
      const refreshed = await tokenRequest(`grant_type=refresh_token&refresh_token=${token.refresh_token}`);
      assert.equal(refreshed.status, 400, refreshed.text);
      assert.equal((JSON.parse(refreshed.text) as { error: string }).error, 'invalid_grant');
    } finally {
      await stop(child);
    }
    const bad = roaServeRefused(['--access-token-ttl', '0']);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--access-token-ttl must be an integer from 1 to 315360000, got '0'/);
    // Past ten years an expiry is no longer a valid Date: refused at start-up, not at the first token.
    const huge = roaServeRefused(['--refresh-token-ttl', '100000000000000']);
    assert.equal(huge.status, 1);
    assert.match(huge.stderr, /--refresh-token-ttl must be an integer from 1 to 315360000/);
  });

  it('keeps the password grant to the clients --password-grant-clients names, and signs JWTs with the --jwt-key-file key', async () => {
    const db = join(dir, 'first-party.db');
    const keyFile = join(dir, 'keys', 'jwt.json');
    assert.equal(roa(['user', 'add', 'pia', '--role', 'editor', '--password', 'pia-password-1', '--db', db]).status, 0);
    for (const id of ['first-app', 'third-app']) {
      assert.equal(roa(['client', 'add', id, '--user', 'pia', '--secret', `${id}-secret-0123456789abcdef`, '--db', db]).status, 0);
    }
    // A chosen client secret is stored like a password (scrypt), never as a fast hash or in clear.
    const store = await openStore(db);
    try {
      const stored = (await store.getClient('first-app'))!.secretHash;
      assert.match(stored, /^scrypt\$/);
      assert.ok(!stored.includes('first-app-secret'));
    } finally {
      await store.close();
    }
    const { child, base } = await roaServe(db, ['--password-grant-clients', 'first-app', '--token-format', 'jwt', '--jwt-key-file', keyFile]);
    const passwordGrant = (id: string) => send(base, 'POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${id}:${id}-secret-0123456789abcdef`).toString('base64')}` },
      body: 'grant_type=password&username=pia&password=pia-password-1',
    });
    try {
      const first = await passwordGrant('first-app');
      assert.equal(first.status, 200, first.text);
      const third = await passwordGrant('third-app');
      assert.equal(third.status, 400, third.text);
      assert.equal((JSON.parse(third.text) as { error: string }).error, 'unauthorized_client');
      // The token is signed with the key in --jwt-key-file (created there, mode 0600), whose public half the JWKS serves.
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const key = JSON.parse(readFileSync(keyFile, 'utf8')) as { x: string; y: string };
      const jwks = JSON.parse((await send(base, 'GET', '/oauth/jwks.json')).text) as { keys: Array<{ kid: string; x: string; y: string }> };
      assert.deepEqual(jwks.keys.map((k) => [k.x, k.y]), [[key.x, key.y]]);
      const header = JSON.parse(Buffer.from((JSON.parse(first.text) as { access_token: string }).access_token.split('.')[0]!, 'base64url').toString()) as { kid: string };
      assert.equal(header.kid, jwks.keys[0]!.kid);
    } finally {
      await stop(child);
    }
  });

  it('refuses a clock skew that is not 1 s to a day, from the flag or ROA_HMAC_CLOCK_SKEW', () => {
    for (const [args, env] of [[['--hmac-clock-skew', '0'], {}], [['--hmac-clock-skew', '86401'], {}], [[], { ROA_HMAC_CLOCK_SKEW: '10m' }]] as const) {
      const r = roaServeRefused([...args], env);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, /--hmac-clock-skew must be an integer from 1 to 86400, got '(0|86401|10m)'/);
    }
  });

  it('keeps HMAC nonces in the keyed table by default, in the log with --sqlite-nonce-log or ROA_SQLITE_NONCE_LOG=1', async () => {
    const modes: [string, string[], Record<string, string>, boolean][] = [
      ['default', [], {}, false], ['flag', ['--sqlite-nonce-log'], {}, true], ['env', [], { ROA_SQLITE_NONCE_LOG: '1' }, true],
    ];
    for (const [name, args, env, log] of modes) {
      const db = join(dir, `nonce-mode-${name}.db`);
      const keyFile = join(dir, `nonce-mode-${name}.key`);
      const secret = addHmacUser('nils', 'reader', keyFile, db);
      const { child, base } = await roaServe(db, ['--secret-key-file', keyFile, ...args], env);
      try {
        const signed = [1, 2].map(() => ({ ...signRequest({ method: 'GET', target: '/articles', user: 'nils', secret }) }) as Record<string, string>);
        for (const headers of signed) assert.equal((await send(base, 'GET', '/articles', { headers })).status, 200, name);
        const file = new Database(db, { readonly: true });
        try {
          const count = (table: string) => (file.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
          assert.deepEqual([count('nonces'), count('nonce_log') > 0], log ? [0, true] : [2, false], name);
        } finally {
          file.close();
        }
        for (const headers of signed) assert.equal((await send(base, 'GET', '/articles', { headers })).status, 401, name);
      } finally {
        await stop(child);
      }
    }
  });

  it('refuses a ROA_SQLITE_NONCE_LOG that is not on or off', () => {
    const r = roaServeRefused([], { ROA_SQLITE_NONCE_LOG: 'maybe' });
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, /--sqlite-nonce-log \(ROA_SQLITE_NONCE_LOG\) must be on or off \(1 or 0\), got 'maybe'/);
  });

  it('refuses a nonce memory that is not 1 to 10,000,000 nonces, from the flag or ROA_NONCE_MEMORY', () => {
    for (const [args, env] of [[['--nonce-memory', '0'], {}], [['--nonce-memory', '10000001'], {}], [[], { ROA_NONCE_MEMORY: '1e3x' }]] as const) {
      const r = roaServeRefused([...args], env);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, /--nonce-memory must be an integer from 1 to 10000000, got '(0|10000001|1e3x)'/);
    }
  });

  it('refuses time-outs past what a timer can wait and max-age past what caches must handle', () => {
    for (const [flag, value, max] of <[string, string, string][]>[['--purge-timeout', '2147483648', '2147483647'], ['--purge-delay', '-1', '2147483647'], ['--max-age', '2147483649', '2147483648']]) {
      const r = roaServeRefused([flag, value]);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, new RegExp(`${flag} must be an integer from 0 to ${max}, got '${value}'`));
    }
  });

  it('refuses to run the gateway without --upstream', () => {
    const r = roa(['gateway', '--port', '0'], { UPSTREAM_URL: '' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--upstream is required/);
  });
});
