/** @module test/storage/postgres-store The Store contract on PostgreSQL, in a schema of its own that is dropped afterwards. */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../../src/storage/open-store.js';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL as PG_URL } from '../helpers/services.js';
import { storeContract } from './store.cases.js';

/** One prefix per run, so parallel runs against one database never collide. */
const RUN = `roa_test_${randomBytes(5).toString('hex')}`;

/** Drops this run's schemas whose name starts with `prefix`. */
async function dropSchemas(prefix = RUN): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, [prefix],
    );
    for (const r of rows) await client.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}

const skip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(PG_URL)} (set ROA_TEST_PG_URL)`);

storeContract('PostgresStore', async () => {
  const schema = `${RUN}_contract`;
  const store = await PostgresStore.open({ connectionString: PG_URL, schema });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await dropSchemas(schema);
    },
  };
}, { skip });

describe('PostgresStore', () => {
  const { it, after } = suiteNeeding(skip);
  after(() => dropSchemas());

  it('creates its schema and keeps every table in it', async () => {
    const schema = `${RUN}_own`;
    const store = await PostgresStore.open({ connectionString: PG_URL, schema });
    try {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      const { rows } = await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema],
      );
      await client.end();
      assert.deepEqual(rows.map((r) => r.table_name), ['articles', 'idempotency_keys', 'nonces', 'oauth1_consumers', 'oauth1_temporary_credentials', 'oauth1_token_credentials', 'oauth2_authorization_codes', 'oauth2_redirect_uris', 'oauth_clients', 'oauth_tokens', 'roa_migrations', 'users']);
    } finally {
      await store.close();
    }
  });

  it('lets instances starting together migrate one fresh schema exactly once', async () => {
    const schema = `${RUN}_Race`;
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => PostgresStore.open({ connectionString: PG_URL, schema, max: 2 })),
    );
    try {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      const { rows } = await client.query<{ id: number }>(`SELECT id FROM "${schema}".roa_migrations ORDER BY id`);
      await client.end();
      assert.deepEqual(rows.map((r) => r.id), MIGRATIONS.map((m) => m.id));
      const a = await stores[0]!.createArticle({ title: 'Tea', price: { amount: '1', currency: 'EUR' } }, 'ann');
      assert.deepEqual(await stores[3]!.getArticleById(a.id), a);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('is what openStore returns for postgres:// URLs', async () => {
    const store = await openStore(PG_URL, { schema: `${RUN}_open` });
    try {
      assert.equal(store.kind, 'postgres');
      assert.ok(store instanceof PostgresStore);
      assert.equal(await store.consumeNonce('n', Date.now() + 1000), true);
    } finally {
      await store.close();
    }
  });

  it("revokes a rotation's successors when the user's tokens are revoked while it commits", async () => {
    const schema = `${RUN}_revoke`;
    const store = await PostgresStore.open({ connectionString: PG_URL, schema });
    const blocker = new pg.Client({ connectionString: PG_URL });
    await blocker.connect();
    try {
      const expiresAt = new Date(Date.now() + 60_000);
      const tok = (kind: 'access' | 'refresh', hash: string) => ({ hash, kind, clientId: 'c', userName: 'racer', scopes: ['a'], familyId: 'fam', expiresAt });
      const old = tok('refresh', 'old');
      await store.saveToken(old);
      const next = [tok('access', 'next-access'), tok('refresh', 'next-refresh')];
      // Hold the rotation open between its first and second insert: another transaction inserts the
      // second successor's key and keeps it uncommitted, so the rotation waits on the unique index.
      await blocker.query('BEGIN');
      await blocker.query(`INSERT INTO "${schema}".oauth_tokens (hash, kind, client_id, user_name, scopes, family_id, expires_at) VALUES ('next-refresh', 'refresh', 'c', 'x', 'a', 'x', now())`);
      const rotation = store.rotateRefreshToken(old.hash, next);
      await waitForLockWaiters(blocker, 1);
      // The password changes now: the revocation starts while the rotation is uncommitted.
      const revocation = store.revokeUserTokens('racer');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await blocker.query('ROLLBACK');
      assert.equal(await rotation, 'ok');
      await revocation;
      for (const t of [old, ...next]) assert.equal((await store.getToken(t.hash))?.revoked, true, `${t.hash} still live after the user's tokens were revoked`);
    } finally {
      await blocker.end();
      await store.close();
    }
  });

  it('rejects a schema name it cannot quote safely', () => {
    assert.throws(() => new PostgresStore({ connectionString: PG_URL, schema: 'x"; DROP' }), /invalid PostgreSQL schema name/);
  });
});

/** Resolves once `n` backends wait on a lock (polled; at most 60 s, for a busy machine). */
async function waitForLockWaiters(client: pg.Client, n: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await client.query<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
    if (rows[0]!.waiting >= n) return;
    if (Date.now() > deadline) throw new Error(`no backend waited on a lock within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
