/** @module test/storage/sqlite-nonces The SQLite nonce log: memory index, overflow table, sweep, restart, rollback. */
import { afterEach, beforeEach, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { SqliteNonces } from '../../src/storage/sqlite/sqlite-nonces.js';
import { openStore } from '../../src/storage/open-store.js';
import { MIGRATIONS, SQLITE_DIALECT, migrationsTableSql } from '../../src/storage/migrations.js';

const T0 = 1_800_000_000_000;
const MIN = 60_000;
/** Rows in the key-ordered table that takes the nonces memory has no room for. */
const overflowRows = (db: Db) => (db.prepare('SELECT count(*) AS n FROM nonces').get() as { n: number }).n;

describe('SqliteNonces', () => {
  let dir: string;
  let path: string;
  const open: Db[] = [];

  /** A connection to a migrated database file (the store creates the schema). */
  async function connect(busyTimeoutMs = 1000): Promise<Db> {
    const db = new Database(path);
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    open.push(db);
    return db;
  }
  const logRows = (db: Db) => (db.prepare('SELECT count(*) AS n FROM nonce_log').get() as { n: number }).n;
  const req = (key: string, expiresAtMs: number) => ({ key, expiresAtMs });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'roa-nonces-'));
    path = join(dir, 'roa.db');
    await new SqliteStore(path).close();
  });
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a batch in order: fresh, a replay within the batch, an expired record taken over', async () => {
    const nonces = new SqliteNonces(await connect());
    assert.deepEqual(
      nonces.consume([req('a', T0 + MIN), req('b', T0 - 1), req('a', T0 + MIN), req('b', T0 + MIN), req('c', T0 + 1)], T0),
      [true, true, false, true, true],
    );
    assert.deepEqual(nonces.consume([req('a', T0 + 2 * MIN), req('b', T0 + MIN), req('c', T0 + MIN)], T0), [false, false, false]);
    // Exactly at its expiry a record no longer counts; a millisecond before, it still does.
    assert.deepEqual(nonces.consume([req('c', T0 + MIN)], T0 + 1), [true]);
    assert.deepEqual(nonces.consume([req('a', T0 + 2 * MIN)], T0 + MIN - 1), [false]);
  });

  it('packs a batch into one log row that another connection reads back exactly, key by key', async () => {
    const a = new SqliteNonces(await connect());
    const keys = Array.from({ length: 150 }, (_, i) => `big-${i}`);
    // 150 fresh keys with replays of the first three mixed in; a key with a tab; one that expires sooner.
    const batch = [...keys.map((k) => req(k, T0 + MIN)), req('big-0', T0 + MIN), req('big-1', T0 + MIN), req('big-2', T0 + MIN), req('tab\tkey', T0 + MIN), req('short', T0 + 10)];
    assert.deepEqual(a.consume(batch, T0), [...keys.map(() => true), false, false, false, true, true]);
    const db = open[0]!;
    assert.equal(logRows(db), 1, 'one row for the whole batch');
    assert.equal(overflowRows(db), 0);
    // The row holds 16-byte fingerprints (after a format byte), not the nonces: 152 fresh keys.
    const { key: blob } = db.prepare('SELECT key FROM nonce_log').get() as { key: Buffer };
    assert.ok(Buffer.isBuffer(blob));
    assert.equal(blob.length, 1 + 152 * 16);
    assert.equal(blob.includes('big-'), false);
    const b = new SqliteNonces(await connect());
    // Read back key by key with each key's own expiry: 'short' expired at T0 + 10, the rest did not.
    assert.deepEqual(
      b.consume([req('big-149', T0 + MIN), req('big-75', T0 + MIN), req('tab\tkey', T0 + MIN), req('short', T0 + MIN), req('fresh', T0 + MIN)], T0 + 20),
      [false, false, false, true, true],
    );
    // a reads b's row before deciding.
    assert.deepEqual(a.consume([req('fresh', T0 + MIN), req('short', T0 + MIN)], T0 + 21), [false, false]);
  });

  it('packs any key, newlines and all: fingerprints hold no separators', async () => {
    const a = new SqliteNonces(await connect());
    assert.deepEqual(a.consume([req('line\nbreak', T0 + MIN), req('plain', T0 + MIN), req('line\nbreak', T0 + MIN)], T0), [true, true, false]);
    const db = open[0]!;
    assert.equal(overflowRows(db), 0);
    assert.equal(logRows(db), 1);
    const b = new SqliteNonces(await connect());
    assert.deepEqual(b.consume([req('line\nbreak', T0 + MIN), req('plain', T0 + MIN), req('line', T0 + MIN), req('break', T0 + MIN)], T0 + 1), [false, false, true, true]);
  });

  it('fingerprints alike on every connection to one database (its seed), unlike another database', async () => {
    const seedOf = (db: Db) => (db.prepare('SELECT seed FROM nonce_seed').get() as { seed: Buffer }).seed;
    const one = await connect();
    const two = await connect();
    assert.equal(seedOf(one).length, 8);
    assert.deepEqual(seedOf(one), seedOf(two));
    const otherPath = join(dir, 'other.db');
    await new SqliteStore(otherPath).close();
    const other = new Database(otherPath);
    open.push(other);
    assert.notDeepEqual(seedOf(other), seedOf(one));
    // Same key, same fingerprint on both connections: what one writes the other reads as the same nonce.
    new SqliteNonces(one).consume([req('shared', T0 + MIN)], T0);
    const { key: blob } = one.prepare('SELECT key FROM nonce_log ORDER BY id DESC LIMIT 1').get() as { key: Buffer };
    const reader = new SqliteNonces(two);
    assert.deepEqual(reader.consume([req('shared', T0 + MIN)], T0 + 1), [false]);
    const index = Reflect.get(reader, 'live') as { has(key: string, now: number): boolean; lastA: number; lastB: number };
    index.has('shared', T0 + 1);
    assert.equal(blob.readInt32LE(1), index.lastA);
    assert.equal(blob.readInt32LE(5), index.lastB);
    assert.equal(blob.readDoubleLE(9), T0 + MIN);
  });

  it('still reads packed text rows written by earlier versions, each key with its own expiry', async () => {
    const db = await connect();
    db.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?)').run(`\nold-a\t${T0 + MIN}\nold\tb\t${T0 + MIN}\nold-c\t${T0 + 5}`, T0 + MIN);
    const nonces = new SqliteNonces(db);
    assert.deepEqual(
      nonces.consume([req('old-a', T0 + MIN), req('old\tb', T0 + MIN), req('old-c', T0 + MIN), req('new', T0 + MIN)], T0 + 10),
      [false, false, true, true],
    );
  });

  it('refuses to decide (throws) on a log row of a format it does not know', async () => {
    const db = await connect();
    db.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?)').run(Buffer.from([2, 0, 0, 0]), T0 + MIN);
    const nonces = new SqliteNonces(db);
    assert.throws(() => nonces.consume([req('any', T0 + MIN)], T0), /unknown format/);
    // Nothing of the failed batch is remembered.
    assert.equal(nonces.size, 0);
  });

  it('still reads single-key rows written before rows were packed', async () => {
    const db = await connect();
    db.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?), (?, ?)').run('legacy', T0 + MIN, 'legacy-gone', T0 + 5);
    const nonces = new SqliteNonces(db);
    assert.deepEqual(nonces.consume([req('legacy', T0 + MIN), req('legacy-gone', T0 + MIN)], T0 + 10), [false, true]);
  });

  it('reads the log back after a restart and refuses what it recorded', async () => {
    const first = new SqliteNonces(await connect());
    assert.deepEqual(first.consume([req('kept', T0 + MIN), req('gone', T0 + 10)], T0), [true, true]);
    const second = new SqliteNonces(await connect());
    assert.deepEqual(second.consume([req('kept', T0 + MIN), req('gone', T0 + MIN), req('new', T0 + MIN)], T0 + 20), [false, true, true]);
    assert.equal(second.size, 3);
  });

  it('sees what another connection appended before deciding (exact across processes)', async () => {
    const one = new SqliteNonces(await connect());
    const two = new SqliteNonces(await connect());
    for (let i = 0; i < 50; i++) {
      const key = `k${i}`;
      const answers = [...one.consume([req(key, T0 + MIN)], T0), ...two.consume([req(key, T0 + MIN)], T0), ...one.consume([req(key, T0 + MIN)], T0)];
      assert.deepEqual(answers, [true, false, false], key);
    }
  });

  it('past its memory limit records nonces in the key-ordered table, still exact', async () => {
    const db = await connect();
    const nonces = new SqliteNonces(db, 3);
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    const expiry = (k: string) => (k < 'd' ? T0 + MIN : T0 + 5 * MIN);
    assert.deepEqual(nonces.consume(keys.map((k) => req(k, expiry(k))), T0), [true, true, true, true, true, true]);
    assert.equal(nonces.size, 3);
    assert.equal(logRows(db), 1, 'the three in memory, packed in one row');
    assert.equal(overflowRows(db), 3);
    assert.deepEqual(nonces.consume(keys.map((k) => req(k, expiry(k))), T0 + 1), [false, false, false, false, false, false]);
    // Once the memory entries expire there is room again, but the overflowed keys stay refused.
    assert.deepEqual(nonces.consume([req('d', T0 + 3 * MIN), req('g', T0 + 3 * MIN), req('g2', T0 + 3 * MIN)], T0 + 2 * MIN - 1000), [false, true, true]);
    // Another connection with room for one takes the log rows it has no room for into the table.
    const other = new SqliteNonces(await connect(), 1);
    assert.deepEqual(other.consume([req('g', T0 + 3 * MIN), req('g2', T0 + 3 * MIN), req('h', T0 + 3 * MIN)], T0 + 2 * MIN), [false, false, true]);
    assert.equal(other.size, 1);
    // What it read from the log and had no room for is in the table by fingerprint (the log holds no keys).
    const byFingerprint = (db.prepare("SELECT count(*) AS n FROM nonces WHERE key LIKE char(0) || 'fp:%'").get() as { n: number }).n;
    assert.ok(byFingerprint >= 1, `fingerprint rows: ${byFingerprint}`);
    // And a third connection, as short of room, refuses them too, through those rows.
    const third = new SqliteNonces(await connect(), 1);
    assert.deepEqual(third.consume([req('g', T0 + 3 * MIN), req('g2', T0 + 3 * MIN), req('h', T0 + 3 * MIN), req('i', T0 + 3 * MIN)], T0 + 2 * MIN), [false, false, false, true]);
  });

  it('records a nonce its memory index cannot place in the key-ordered table, still exact', async () => {
    const db = await connect();
    const nonces = new SqliteNonces(db);
    const index = Reflect.get(nonces, 'live') as { has(key: string, now: number): boolean };
    // 65 keys whose fingerprints all start probing at one slot: the index places 64 (its probe cap).
    const crowd: string[] = [];
    for (let i = 0; crowd.length < 65; i++) {
      index.has(`crowd-${i}`, T0);
      if (((Reflect.get(index, 'a') as number) & 1023) === 0) crowd.push(`crowd-${i}`);
    }
    assert.deepEqual(nonces.consume(crowd.map((k) => req(k, T0 + MIN)), T0), crowd.map(() => true));
    assert.equal(overflowRows(db), 1);
    assert.deepEqual(nonces.consume(crowd.map((k) => req(k, T0 + MIN)), T0 + 1), crowd.map(() => false));
    const other = new SqliteNonces(await connect());
    assert.deepEqual(other.consume([req(crowd[64]!, T0 + MIN), req(crowd[0]!, T0 + MIN)], T0 + 2), [false, false]);
  });

  it('sweeps expired rows out of the log, never the newest', async () => {
    const db = await connect();
    const nonces = new SqliteNonces(db);
    nonces.consume(Array.from({ length: 100 }, (_, i) => req(`old${i}`, T0 + 1000)), T0);
    nonces.consume([req('young', T0 + 10 * MIN)], T0 + 1);
    assert.equal(logRows(db), 2, 'one packed row per batch');
    // A later batch, past the sweep interval and the old rows' expiry, deletes them.
    nonces.consume([req('next', T0 + 10 * MIN)], T0 + 5000);
    assert.equal(logRows(db), 2);
    // Even when everything has expired, the newest row stays: ids must keep increasing for other connections.
    nonces.consume([req('last', T0 + 6000)], T0 + 5500);
    nonces.consume([], T0 + 20 * MIN);
    nonces.consume([], T0 + 21 * MIN);
    assert.equal(logRows(db), 1);
    assert.equal(nonces.size, 0);
  });

  it('forgets a batch whose transaction failed, so its nonces are fresh once the database is free', async () => {
    const nonces = new SqliteNonces(await connect(0));
    const blocker = await connect();
    blocker.exec('BEGIN IMMEDIATE');
    assert.throws(() => nonces.consume([req('x', T0 + MIN)], T0), /locked|busy/i);
    blocker.exec('COMMIT');
    assert.equal(nonces.size, 0);
    assert.deepEqual(nonces.consume([req('x', T0 + MIN)], T0), [true]);
  });
});

describe('SqliteStore nonceMemoryLimit', () => {
  it('rejects a limit that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => new SqliteStore(':memory:', { nonceMemoryLimit: bad }), RangeError);
    }
    return assert.rejects(openStore(':memory:', { nonceMemoryLimit: 0 }), RangeError);
  });

  it('is passed on by openStore: past it, nonces go to the key-ordered table, and replays are still refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-nonce-limit-'));
    try {
      const overflowAfter = async (limit: number | undefined): Promise<number> => {
        const path = join(dir, `limit-${limit ?? 'default'}.db`);
        const store = await openStore(path, limit === undefined ? {} : { nonceMemoryLimit: limit });
        try {
          const until = Date.now() + MIN;
          assert.deepEqual(await Promise.all(['a', 'b', 'c'].map((k) => store.consumeNonce(k, until))), [true, true, true]);
          // Each replayed in a later turn (its own transaction): refused whether it is held in memory or on disk.
          for (const k of ['a', 'b', 'c']) assert.equal(await store.consumeNonce(k, until), false, k);
        } finally {
          await store.close();
        }
        const db = new Database(path, { readonly: true });
        try {
          return overflowRows(db);
        } finally {
          db.close();
        }
      };
      assert.equal(await overflowAfter(undefined), 0);
      assert.equal(await overflowAfter(2), 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteStore upgrade to fingerprint rows (migration 5)', () => {
  it('opens a database of the text-row era, keeps refusing the nonces its log holds, and writes fingerprints from then on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-nonce-upgrade-'));
    const path = join(dir, 'roa.db');
    try {
      // The schema as roa left it before migration 5, with a packed text row and a single-key row.
      const old = new Database(path);
      old.exec(migrationsTableSql(SQLITE_DIALECT));
      for (const m of MIGRATIONS.filter((m) => m.id <= 4)) {
        for (const sql of m.up(SQLITE_DIALECT)) old.exec(sql);
        old.prepare('INSERT INTO roa_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, Date.now());
      }
      const until = Date.now() + 10 * MIN;
      old.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?), (?, ?)').run(`\nhmac:ann:old-packed-nonce-1\t${until}\nhmac:ann:old-packed-nonce-2\t${until}`, until, 'hmac:ann:old-single-nonce-1', until);
      old.close();

      const store = new SqliteStore(path);
      try {
        assert.deepEqual(
          await Promise.all(['hmac:ann:old-packed-nonce-1', 'hmac:ann:old-packed-nonce-2', 'hmac:ann:old-single-nonce-1', 'hmac:ann:new-nonce-00001'].map((k) => store.consumeNonce(k, until))),
          [false, false, false, true],
        );
      } finally {
        await store.close();
      }
      const db = new Database(path, { readonly: true });
      try {
        const applied = (db.prepare('SELECT id FROM roa_migrations ORDER BY id').all() as { id: number }[]).map((r) => r.id);
        assert.deepEqual(applied, MIGRATIONS.map((m) => m.id));
        const newest = db.prepare('SELECT key FROM nonce_log ORDER BY id DESC LIMIT 1').get() as { key: unknown };
        assert.ok(Buffer.isBuffer(newest.key), 'the new nonce went into a fingerprint row');
        assert.equal((newest.key as Buffer).length, 1 + 16);
      } finally {
        db.close();
      }
      // And a restart refuses the new nonce too, read back from its fingerprint.
      const again = new SqliteStore(path);
      try {
        assert.equal(await again.consumeNonce('hmac:ann:new-nonce-00001', until), false);
        assert.equal(await again.consumeNonce('hmac:ann:old-packed-nonce-2', until), false);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
