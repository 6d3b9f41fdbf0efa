/**
 * @module test/storage/pg-schema
 * PostgreSQL isolation: `--schema` / ROA_PG_SCHEMA keeps roa's tables in a schema of their own, bad schema names
 * and URLs without a user are refused with one line (also through `roa serve`, exit 1).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { describe } from '../helpers/node-test.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL as PG_URL } from '../helpers/services.js';
import { assertPostgresUser, openStore } from '../../src/storage/open-store.js';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import type { Store } from '../../src/storage/store.js';

const RUN = `roa_test_schema_${randomBytes(4).toString('hex')}`;
const CLI = [join(process.cwd(), 'src', 'cli.ts')];
const tea = { title: 'Tea', price: { amount: '3.50', currency: 'eur' } };

/** The environment of a CLI run with no PostgreSQL defaults of the caller's shell. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['PGUSER', 'DATABASE_URL', 'ROA_PG_SCHEMA']) if (!(name in extra)) delete env[name];
  return env;
}

function roaServe(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, ['--import', 'tsx', ...CLI, 'serve', '--port', '0', '--gateway-port', '0', ...args], { encoding: 'utf8', env, timeout: 60_000 });
}

async function withClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const skip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(PG_URL)} (set ROA_TEST_PG_URL)`);

describe('PostgreSQL schema isolation', () => {
  const { it, after } = suiteNeeding(skip);
  after(() => withClient(async (c) => {
    const { rows } = await c.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)', [RUN]);
    for (const r of rows) await c.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
  }));

  it('keeps two schemas of one database apart: articles, users, nonces and idempotency keys', async () => {
    const stores: Store[] = [];
    try {
      const a = await openStore(PG_URL, { schema: `${RUN}_a` });
      stores.push(a);
      const b = await openStore(PG_URL, { schema: `${RUN}_b` });
      stores.push(b);
      const created = await a.createArticle(tea, 'ann');
      assert.equal((await a.getArticleById(created.id))?.title, 'Tea');
      assert.equal((await b.listArticles({ limit: 100 })).length, 0);
      await a.createUser({ name: 'ann', role: 'editor', passwordHash: 'x' });
      assert.equal(await b.getUser('ann'), undefined);
      const exp = Date.now() + 60_000;
      assert.equal(await a.consumeNonce('n1', exp), true);
      assert.equal(await b.consumeNonce('n1', exp), true);
      const claim = { caller: 'ann', key: 'k', token: 't', fingerprint: 'f', nowMs: 0, lockedUntilMs: 60_000, expiresAtMs: 86_400_000 };
      assert.equal((await a.claimIdempotencyKey(claim)).state, 'claimed');
      assert.equal((await b.claimIdempotencyKey(claim)).state, 'claimed');
      const tables = await withClient(async (c) => (await c.query<{ table_schema: string; table_name: string }>(
        `SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = ANY($1) ORDER BY table_name`,
        [[`${RUN}_a`, `${RUN}_b`]],
      )).rows);
      const inA = tables.filter((t) => t.table_schema === `${RUN}_a`).map((t) => t.table_name);
      const inB = tables.filter((t) => t.table_schema === `${RUN}_b`).map((t) => t.table_name);
      // Each schema holds the whole set of roa's tables (as many as the migrations make), and the same set.
      for (const name of ['roa_migrations', 'articles', 'users', 'idempotency_keys']) assert.ok(inA.includes(name), `${name} in schema a`);
      assert.deepEqual(inB, inA);
    } finally {
      for (const s of stores) await s.close();
    }
  });

  it('refuses schema names that are not plain SQL identifiers, with one line', async () => {
    for (const bad of ['', '1abc', 'a-b', 'a b', 'x"; DROP SCHEMA public; --', 'pg_roa', 'PG_catalog', 'a'.repeat(64), 'caf\u00e9']) {
      await assert.rejects(openStore(PG_URL, { schema: bad }), (err: Error) => {
        assert.match(err.message, /^invalid PostgreSQL schema name/);
        assert.doesNotMatch(err.message, /\n/);
        return true;
      }, JSON.stringify(bad));
    }
    assert.equal((await withClient((c) => c.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'pg_roa'`))).rowCount, 0);
  });

  it('puts the tables of `roa serve --schema` (and ROA_PG_SCHEMA) in that schema', async () => {
    for (const [args, env] of [[['--schema', `${RUN}_cli`], {}], [[], { ROA_PG_SCHEMA: `${RUN}_env` }]] as const) {
      const schema = args.length > 0 ? `${RUN}_cli` : `${RUN}_env`;
      const child = spawn(process.execPath, ['--import', 'tsx', ...CLI, 'serve', '--db', PG_URL, '--port', '0', '--gateway-port', '0', '--log-level', 'silent', ...args],
        { env: cliEnv({ ROA_SECRET_KEY: randomBytes(32).toString('base64'), ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
      child.stderr.on('data', (c: Buffer) => { out += c.toString(); });
      const exited = new Promise<number | null>((r) => child.once('exit', r));
      await Promise.race([
        new Promise<void>((resolve) => { const t = setInterval(() => { if (/service on/.test(out)) { clearInterval(t); resolve(); } }, 50); }),
        exited.then((code) => { throw new Error(`roa serve exited with ${code}: ${out}`); }),
      ]);
      child.kill('SIGTERM');
      await exited;
      const { rows } = await withClient((c) => c.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'idempotency_keys'`, [schema]));
      assert.equal(rows.length, 1, `${schema}: ${out}`);
    }
  });

  it('puts the users and clients of `roa user` / `roa client` with --schema in that schema, not the default one', async () => {
    const schema = `${RUN}_users`;
    const env = cliEnv({ ROA_SECRET_KEY: randomBytes(32).toString('base64') });
    const roa = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ...CLI, ...args, '--db', PG_URL, '--schema', schema], { encoding: 'utf8', env, timeout: 60_000 });
    const name = `u_${randomBytes(3).toString('hex')}`;
    const added = roa('user', 'add', name, '--role', 'editor', '--password', 'a-long-password');
    assert.equal(added.status, 0, added.stderr);
    const client = roa('client', 'add', `c_${name}`, '--user', name);
    assert.equal(client.status, 0, client.stderr);
    const listed = roa('user', 'list');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(name));
    const inSchema = await withClient((c) => c.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'users' AND table_schema = $1`, [schema]));
    assert.equal(inSchema.rowCount, 1);
    const users = await withClient((c) => c.query(`SELECT name FROM "${schema}".users WHERE name = $1`, [name]));
    assert.equal(users.rowCount, 1);
    const clients = await withClient((c) => c.query(`SELECT client_id FROM "${schema}".oauth_clients WHERE client_id = $1`, [`c_${name}`]));
    assert.equal(clients.rowCount, 1);
    // Without --schema the user is not found in the connection's default schema.
    const elsewhere = spawnSync(process.execPath, ['--import', 'tsx', ...CLI, 'user', 'list', '--db', PG_URL], { encoding: 'utf8', env, timeout: 60_000 });
    assert.doesNotMatch(elsewhere.stdout, new RegExp(name));
  });
});

describe('PostgreSQL URLs without a user', () => {
  const { it } = suiteNeeding(false);

  it('refuses a URL naming no user while PGUSER is unset, and only then', () => {
    for (const url of ['postgres://127.0.0.1:5432/test', 'postgresql://127.0.0.1/test', 'postgres://:secret@127.0.0.1/test', 'postgres:///test', 'postgres://127.0.0.1/test?user=']) {
      assert.throws(() => assertPostgresUser(url, {}), /names no user: write postgres:\/\/USER@HOST:PORT\/DATABASE \(or set PGUSER\)$/, url);
    }
    assert.throws(() => assertPostgresUser('postgres://:hunter2@127.0.0.1/test', {}), (err: Error) => !err.message.includes('hunter2'));
    for (const url of ['postgres://roa@127.0.0.1/test', 'postgres://roa:pw@127.0.0.1/test', 'postgres://127.0.0.1/test?user=roa']) {
      assert.doesNotThrow(() => assertPostgresUser(url, {}), url);
    }
    assert.doesNotThrow(() => assertPostgresUser('postgres://127.0.0.1:5432/test', { PGUSER: 'roa' }));
    // The OS user ($USER) is never guessed: a service manager's differs from the shell's.
    assert.throws(() => assertPostgresUser('postgres://127.0.0.1:5432/test', { USER: 'root' }), /names no user/);
  });

  it('makes `roa serve` say so in one line and exit 1', () => {
    const r = roaServe(['--db', 'postgres://127.0.0.1:5432/test'], cliEnv());
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr.trim(), 'roa: the PostgreSQL URL postgres://127.0.0.1:5432/test names no user: write postgres://USER@HOST:PORT/DATABASE (or set PGUSER)');
    assert.doesNotMatch(r.stderr, /startup packet/);
  });

  it('makes `roa serve` refuse a bad --schema, and --schema with SQLite, in one line', () => {
    const bad = roaServe(['--db', PG_URL, '--schema', 'no-dashes'], cliEnv());
    assert.equal(bad.status, 1, bad.stderr);
    assert.match(bad.stderr.trim(), /^roa: invalid PostgreSQL schema name "no-dashes": [^\n]+$/);
    const sqlite = roaServe(['--db', ':memory:'], cliEnv({ ROA_PG_SCHEMA: 'roa' }));
    assert.equal(sqlite.status, 1, sqlite.stderr);
    assert.equal(sqlite.stderr.trim(), 'roa: a schema (--schema, ROA_PG_SCHEMA) applies to PostgreSQL only; the store URL names SQLite');
  });
});
