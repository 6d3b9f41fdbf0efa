/** @module test/storage/sqlite-store The Store contract on SQLite, in memory and in a WAL file, plus SQLite specifics. */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { HttpError } from '../../src/errors/http-error.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { storeContract } from './store.cases.js';

storeContract('SqliteStore :memory:', async () => {
  const store = new SqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
});

storeContract('SqliteStore file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
  const store = new SqliteStore(join(dir, 'nested', 'roa.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

storeContract('SqliteStore file, nonce log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
  const store = new SqliteStore(join(dir, 'roa.db'), { nonceLog: true });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SqliteStore', () => {
  it('creates its directories 0700 and the database, -wal and -shm 0600 (secrets live there); keeps an existing mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
    try {
      const path = join(dir, 'data', 'roa.db');
      const store = new SqliteStore(path);
      await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'scrypt$x' });
      for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(statSync(file).mode & 0o777, 0o600, file);
      assert.equal(statSync(join(dir, 'data')).mode & 0o777, 0o700);
      await store.close();
      const shared = join(dir, 'shared.db');
      writeFileSync(shared, '');
      chmodSync(shared, 0o640);
      await new SqliteStore(shared).close();
      assert.equal(statSync(shared).mode & 0o777, 0o640, 'an operator-chosen mode stays');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checkpoints the WAL in a worker thread once asked, and stops it on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
    const path = join(dir, 'roa.db');
    try {
      const store = new SqliteStore(path, { nonceLog: true });
      store.startBackgroundCheckpoints();
      store.startBackgroundCheckpoints(); // idempotent
      assert.equal(store.checkpointsInBackground, true);
      const before = statSync(path).size;
      // ~400 pages of nonces in the log (100,000 fingerprints of 16 bytes, appended): far below the raised
      // automatic checkpoint (20,000 pages), so only the worker can have copied them into the database file.
      const exp = Date.now() + 60_000;
      for (let round = 0; round < 100; round++) {
        await Promise.all(Array.from({ length: 1000 }, (_, i) => store.consumeNonce(`ckpt:${round}:${i}`, exp)));
      }
      const deadline = Date.now() + 60_000;
      while (statSync(path).size <= before + 1_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(statSync(path).size > before + 1_000_000, `database file ${statSync(path).size} bytes, was ${before}`);
      await store.close();
      assert.equal(store.checkpointsInBackground, false);
      const reopened = new SqliteStore(path, { nonceLog: true });
      assert.equal(await reopened.consumeNonce('ckpt:99:999', exp), false);
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ignores background checkpoints for an in-memory database', async () => {
    const store = new SqliteStore(':memory:');
    store.startBackgroundCheckpoints();
    assert.equal(store.checkpointsInBackground, false);
    await store.close();
  });

  for (const nonceLog of [false, true]) {
    const mode = nonceLog ? 'nonce log' : 'nonce table';
    it(`commits the nonces of one event-loop turn together, answering each in order (${mode})`, async () => {
      const store = new SqliteStore(':memory:', { nonceLog });
      try {
        const exp = Date.now() + 60_000;
        const [a1, b1, a2, c1, b2] = await Promise.all([
          store.consumeNonce('batch:a', exp),
          store.consumeNonce('batch:b', Date.now() - 1),
          store.consumeNonce('batch:a', exp),
          store.consumeNonce('batch:c', exp),
          // b's first record was already expired when written: this one takes it over.
          store.consumeNonce('batch:b', exp),
        ]);
        assert.deepEqual([a1, b1, a2, c1, b2], [true, true, false, true, true]);
        assert.equal(await store.consumeNonce('batch:b', exp), false);
      } finally {
        await store.close();
      }
    });

    it(`lets exactly one of two stores on one file win a nonce (as two processes would) (${mode})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
      const path = join(dir, 'roa.db');
      const one = new SqliteStore(path, { nonceLog });
      const two = new SqliteStore(path, { nonceLog });
      try {
        const exp = Date.now() + 60_000;
        for (let i = 0; i < 20; i++) {
          const results = await Promise.all([one.consumeNonce(`shared:${i}`, exp), two.consumeNonce(`shared:${i}`, exp), one.consumeNonce(`shared:${i}`, exp)]);
          assert.equal(results.filter(Boolean).length, 1, `round ${i}: ${results}`);
        }
      } finally {
        await one.close();
        await two.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it(`writes pending nonces before it closes, and fails (never accepts) once closed (${mode})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
      const path = join(dir, 'roa.db');
      try {
        const store = new SqliteStore(path, { nonceLog });
        const pending = store.consumeNonce('close:a', Date.now() + 60_000);
        await store.close();
        assert.equal(await pending, true);
        await assert.rejects(store.consumeNonce('close:b', Date.now() + 60_000), (err: unknown) => err instanceof HttpError && err.status >= 500);
        const reopened = new SqliteStore(path, { nonceLog });
        assert.equal(await reopened.consumeNonce('close:a', Date.now() + 60_000), false);
        await reopened.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('creates the parent directory, uses WAL and keeps data across reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
    try {
      const path = join(dir, 'a', 'b', 'roa.db');
      const first = new SqliteStore(path);
      const a = await first.createArticle({ title: 'Tea', price: { amount: '3.50', currency: 'EUR' } }, 'ann');
      await first.close();
      assert.ok(existsSync(path));
      const raw = new Database(path, { readonly: true });
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
      const applied = raw.prepare('SELECT id FROM roa_migrations ORDER BY id').all() as { id: number }[];
      assert.deepEqual(applied.map((r) => r.id), MIGRATIONS.map((m) => m.id));
      raw.close();
      const second = new SqliteStore(path);
      assert.deepEqual(await second.getArticleById(a.id), a);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws a one-line 503 error for a path it cannot create', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
    try {
      const file = join(dir, 'plain-file');
      writeFileSync(file, 'not a directory');
      const path = join(file, 'sub', 'roa.db');
      assert.throws(() => new SqliteStore(path), (err: unknown) => {
        assert.ok(err instanceof HttpError);
        assert.equal(err.status, 503);
        assert.equal(err.code, 'ROA_ERR_STORE_UNAVAILABLE');
        assert.ok(err.message.includes(path), err.message);
        assert.ok(!err.message.includes('\n'));
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a database migrated by a newer roa', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
    try {
      const path = join(dir, 'roa.db');
      new SqliteStore(path).close();
      const raw = new Database(path);
      raw.prepare('INSERT INTO roa_migrations (id, name, applied_at) VALUES (9999, ?, ?)').run('future', Date.now());
      raw.close();
      assert.throws(() => new SqliteStore(path), /unknown to this version of roa/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('maps a corrupt file to a 503 error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-'));
    try {
      const path = join(dir, 'junk.db');
      writeFileSync(path, 'this is not an sqlite database, it is just text that is long enough'.repeat(100));
      assert.throws(() => new SqliteStore(path), (err: unknown) => err instanceof HttpError && err.status === 503);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteStore token reads (rows reused until the database may have changed)', () => {
  const expiresAt = new Date(Date.now() + 60_000);
  const token = (hash: string, familyId = 'fam-1') => ({ hash, kind: 'access' as const, clientId: 'app', userName: 'ann', scopes: ['articles:read'], familyId, expiresAt });

  async function withStore(test: (store: SqliteStore, path: string) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-tokens-'));
    const path = join(dir, 'roa.db');
    const store = new SqliteStore(path);
    try {
      await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'scrypt$x' });
      await store.createClient({ clientId: 'app', secretHash: 'sha256$x', userName: 'ann', scopes: ['articles:read'] });
      await test(store, path);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('reads a row once while nothing changes, and hands out a fresh record each time', async () => {
    await withStore(async (store) => {
      await store.saveToken(token('h1'));
      const statement = (store as unknown as { s: { tokenByHash: { get: (h: string) => unknown } } }).s.tokenByHash;
      const read = statement.get.bind(statement);
      let reads = 0;
      statement.get = (h: string) => (reads++, read(h));
      const first = await store.getToken('h1');
      await new Promise((resolve) => setImmediate(resolve));
      const second = await store.getToken('h1');
      assert.equal(reads, 1);
      assert.deepEqual(second, first);
      first!.scopes.push('articles:write');
      first!.expiresAt.setTime(0);
      const third = await store.getToken('h1');
      assert.deepEqual(third!.scopes, ['articles:read']);
      assert.equal(third!.expiresAt.getTime(), expiresAt.getTime());
    });
  });

  it("sees its own writes at once, within the same turn: revocations, rotation, a removed client or user", async () => {
    await withStore(async (store) => {
      await store.saveToken(token('a1'));
      assert.equal((await store.getToken('a1'))!.revoked, false);
      assert.equal(await store.revokeToken('a1'), true);
      assert.equal((await store.getToken('a1'))!.revoked, true);

      await store.saveToken(token('a2', 'fam-2'));
      assert.equal((await store.getToken('a2'))!.revoked, false);
      await store.revokeFamily('fam-2');
      assert.equal((await store.getToken('a2'))!.revoked, true);

      await store.saveToken(token('a3', 'fam-3'));
      assert.equal((await store.getToken('a3'))!.revoked, false);
      await store.revokeUserTokens('ann');
      assert.equal((await store.getToken('a3'))!.revoked, true);

      await store.saveToken({ ...token('r1', 'fam-4'), kind: 'refresh' });
      assert.equal((await store.getToken('r1'))!.usedAt, null);
      assert.equal(await store.rotateRefreshToken('r1', [token('a4', 'fam-4')]), 'ok');
      assert.notEqual((await store.getToken('r1'))!.usedAt, null);

      assert.ok(await store.getToken('a4'));
      await store.removeClient('app');
      assert.equal(await store.getToken('a4'), undefined);
    });
  });

  it('sees a revocation by another store of this process at once', async () => {
    await withStore(async (store, path) => {
      await store.saveToken(token('b1'));
      assert.equal((await store.getToken('b1'))!.revoked, false);
      const other = new SqliteStore(path);
      try {
        await other.revokeToken('b1');
      } finally {
        await other.close();
      }
      assert.equal((await store.getToken('b1'))!.revoked, true);
    });
  });

  it('sees a commit by another connection from the next event-loop turn on', async () => {
    await withStore(async (store, path) => {
      await store.saveToken(token('c1'));
      assert.equal((await store.getToken('c1'))!.revoked, false);
      const raw = new Database(path);
      raw.prepare('UPDATE oauth_tokens SET revoked = 1 WHERE hash = ?').run('c1');
      raw.close();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await store.getToken('c1'))!.revoked, true);
    });
  });

  it('fails a token read on a closed database with a store error, cached row or not', async () => {
    const store = new SqliteStore(':memory:');
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'scrypt$x' });
    await store.createClient({ clientId: 'app', secretHash: 'sha256$x', userName: 'ann', scopes: [] });
    await store.saveToken(token('e1'));
    assert.ok(await store.getToken('e1'));
    await store.close();
    for (const hash of ['e1', 'unknown']) {
      assert.throws(() => store.getTokenNow(hash), (err: unknown) => err instanceof HttpError && err.status >= 500);
      await assert.rejects(store.getToken(hash), (err: unknown) => err instanceof HttpError && err.status >= 500);
    }
  });

  it('sees a revocation by another process, even without a turn in between', async () => {
    await withStore(async (store, path) => {
      await store.saveToken(token('d1'));
      assert.equal((await store.getToken('d1'))!.revoked, false);
      const script = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.prepare("UPDATE oauth_tokens SET revoked = 1 WHERE hash = 'd1'").run(); db.close();`;
      const child = spawnSync(process.execPath, ['-e', script, path], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      // spawnSync blocked this turn for well over a millisecond: data_version is read again.
      assert.equal((await store.getToken('d1'))!.revoked, true);
    });
  });
});
