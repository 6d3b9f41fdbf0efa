/** @module test/storage/sqlite-store The Store contract on SQLite, in memory and in a WAL file, plus SQLite specifics. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

describe('SqliteStore', () => {
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
