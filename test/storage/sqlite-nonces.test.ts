/** @module test/storage/sqlite-nonces The SQLite nonce stores, table (default) and log: exact answers, restart, other connections, rollback; the log's index, overflow and sweep. */
import { afterEach, beforeEach, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { SqliteNonces } from '../../src/storage/sqlite/sqlite-nonces.js';
import { SqliteNonceLog } from '../../src/storage/sqlite/sqlite-nonce-log.js';
import { SqliteNonceTable } from '../../src/storage/sqlite/sqlite-nonce-table.js';
import { openStore } from '../../src/storage/open-store.js';
import { NonceFingerprints } from '../../src/storage/sqlite/nonce-fingerprints.js';

const T0 = 1_800_000_000_000;
const MIN = 60_000;
/** Rows in the key-ordered `nonces` table (the default store, and the log's overflow). */
const overflowRows = (db: Db) => (db.prepare('SELECT count(*) AS n FROM nonces').get() as { n: number }).n;

/** A fresh database file per test (the store creates the schema), and connections to it, closed after. */
function databaseFixture() {
  const open: Db[] = [];
  const fx = {
    dir: '',
    path: '',
    /** A connection to the migrated database file. */
    async connect(busyTimeoutMs = 1000): Promise<Db> {
      const db = new Database(fx.path);
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      open.push(db);
      return db;
    },
    open,
  };
  beforeEach(async () => {
    fx.dir = mkdtempSync(join(tmpdir(), 'roa-nonces-'));
    fx.path = join(fx.dir, 'roa.db');
    await new SqliteStore(fx.path).close();
  });
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}

const req = (key: string, expiresAtMs: number) => ({ key, expiresAtMs });
const logRows = (db: Db) => (db.prepare('SELECT count(*) AS n FROM nonce_log').get() as { n: number }).n;

/** Both nonce stores answer alike: the table (the default) and the log (opt-in). */
const MODES: { name: string; make: (db: Db) => SqliteNonces }[] = [
  { name: 'SqliteNonceTable', make: (db) => new SqliteNonceTable(db) },
  { name: 'SqliteNonceLog', make: (db) => new SqliteNonceLog(db) },
];

for (const { name, make } of MODES) {
  describe(name, () => {
    const fx = databaseFixture();
    const connect = (busyTimeoutMs?: number) => fx.connect(busyTimeoutMs);

    it('answers a batch in order: fresh, a replay within the batch, an expired record taken over', async () => {
      const nonces = make(await connect());
      assert.deepEqual(
        nonces.consume([req('a', T0 + MIN), req('b', T0 - 1), req('a', T0 + MIN), req('b', T0 + MIN), req('c', T0 + 1)], T0),
        [true, true, false, true, true],
      );
      assert.deepEqual(nonces.consume([req('a', T0 + 2 * MIN), req('b', T0 + MIN), req('c', T0 + MIN)], T0), [false, false, false]);
      // Exactly at its expiry a record no longer counts; a millisecond before, it still does.
      assert.deepEqual(nonces.consume([req('c', T0 + MIN)], T0 + 1), [true]);
      assert.deepEqual(nonces.consume([req('a', T0 + 2 * MIN)], T0 + MIN - 1), [false]);
    });

    it('reads the log back after a restart and refuses what it recorded', async () => {
      const first = make(await connect());
      assert.deepEqual(first.consume([req('kept', T0 + MIN), req('gone', T0 + 10)], T0), [true, true]);
      const second = make(await connect());
      assert.deepEqual(second.consume([req('kept', T0 + MIN), req('gone', T0 + MIN), req('new', T0 + MIN)], T0 + 20), [false, true, true]);
      assert.equal(second.size, 3);
    });

    it('sees what another connection appended before deciding (exact across processes)', async () => {
      const one = make(await connect());
      const two = make(await connect());
      for (let i = 0; i < 50; i++) {
        const key = `k${i}`;
        const answers = [...one.consume([req(key, T0 + MIN)], T0), ...two.consume([req(key, T0 + MIN)], T0), ...one.consume([req(key, T0 + MIN)], T0)];
        assert.deepEqual(answers, [true, false, false], key);
      }
    });

    it('forgets a batch whose transaction failed, so its nonces are fresh once the database is free', async () => {
      const nonces = make(await connect(0));
      const blocker = await connect();
      blocker.exec('BEGIN IMMEDIATE');
      assert.throws(() => nonces.consume([req('x', T0 + MIN)], T0), /locked|busy/i);
      blocker.exec('COMMIT');
      assert.equal(nonces.size, 0);
      assert.deepEqual(nonces.consume([req('x', T0 + MIN)], T0), [true]);
    });
  });
}

describe('SqliteNonceTable: the keyed table', () => {
  const fx = databaseFixture();

  it('keeps nonces in the table keyed by nonce and writes nothing to the log', async () => {
    const db = await fx.connect();
    const nonces = new SqliteNonceTable(db);
    assert.deepEqual(nonces.consume([req('a', T0 + MIN), req('b', T0 + MIN), req('a', T0 + MIN)], T0), [true, true, false]);
    assert.equal(overflowRows(db), 2);
    assert.equal(logRows(db), 0);
  });


  it('still refuses what a nonce log on the file recorded, until each record expires', async () => {
    const log = new SqliteNonceLog(await fx.connect());
    assert.deepEqual(log.consume([req('logged', T0 + MIN), req('short', T0 + 10)], T0), [true, true]);
    const table = new SqliteNonceTable(await fx.connect());
    assert.deepEqual(table.consume([req('logged', T0 + MIN), req('short', T0 + MIN), req('new', T0 + MIN)], T0 + 20), [false, true, true]);
    assert.deepEqual(table.consume([req('logged', T0 + 2 * MIN)], T0 + MIN - 1), [false]);
    // Expired, the log's record no longer counts, as in every store.
    assert.deepEqual(table.consume([req('logged', T0 + 2 * MIN)], T0 + MIN), [true]);
  });

  it("refuses a logged nonce its remnant index cannot place (the probe cap), too", async () => {
    const db = await fx.connect();
    const { seed } = db.prepare('SELECT seed FROM nonce_seed').get() as { seed: Buffer };
    const index = new NonceFingerprints(1000, seed);
    // 65 keys whose fingerprints all start probing at one slot, written as one log row: 64 fit the probe cap.
    const crowd: { key: string; a: number; b: number }[] = [];
    for (let i = 0; crowd.length < 65; i++) {
      index.has(`crowd-${i}`, T0);
      if ((index.lastA & 1023) === 0) crowd.push({ key: `crowd-${i}`, a: index.lastA, b: index.lastB });
    }
    const row = Buffer.alloc(1 + 16 * crowd.length);
    row[0] = 1;
    crowd.forEach(({ a, b }, i) => {
      row.writeInt32LE(a, 1 + 16 * i);
      row.writeInt32LE(b, 5 + 16 * i);
      row.writeDoubleLE(T0 + MIN, 9 + 16 * i);
    });
    db.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?)').run(row, T0 + MIN);
    const table = new SqliteNonceTable(db);
    assert.deepEqual(table.consume(crowd.map(({ key }) => req(key, T0 + MIN)), T0), crowd.map(() => false));
    assert.equal((Reflect.get(Reflect.get(table, 'remnant') as object, 'unplaced') as Map<string, number>).size, 1);
    assert.deepEqual(table.consume([req('other', T0 + MIN)], T0), [true]);
  });

  it('prunes expired rows, at most once a second', async () => {
    const db = await fx.connect();
    const nonces = new SqliteNonceTable(db);
    nonces.consume(Array.from({ length: 100 }, (_, i) => req(`old${i}`, T0 + 1000)), T0);
    nonces.consume([req('young', T0 + 10 * MIN)], T0 + 1500 - 1000);
    assert.equal(overflowRows(db), 101, 'within a second of the last prune nothing is deleted');
    nonces.consume([req('next', T0 + 10 * MIN)], T0 + 2000);
    assert.equal(overflowRows(db), 2);
    assert.equal(nonces.size, 2);
  });
});

describe('SqliteNonceLog: memory index, overflow, sweep', () => {
  const fx = databaseFixture();
  const { open } = fx;
  const connect = (busyTimeoutMs?: number) => fx.connect(busyTimeoutMs);

  it('packs a batch into one log row that another connection reads back exactly, key by key', async () => {
    const a = new SqliteNonceLog(await connect());
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
    const b = new SqliteNonceLog(await connect());
    // Read back key by key with each key's own expiry: 'short' expired at T0 + 10, the rest did not.
    assert.deepEqual(
      b.consume([req('big-149', T0 + MIN), req('big-75', T0 + MIN), req('tab\tkey', T0 + MIN), req('short', T0 + MIN), req('fresh', T0 + MIN)], T0 + 20),
      [false, false, false, true, true],
    );
    // a reads b's row before deciding.
    assert.deepEqual(a.consume([req('fresh', T0 + MIN), req('short', T0 + MIN)], T0 + 21), [false, false]);
  });

  it('packs any key, newlines and all: fingerprints hold no separators', async () => {
    const a = new SqliteNonceLog(await connect());
    assert.deepEqual(a.consume([req('line\nbreak', T0 + MIN), req('plain', T0 + MIN), req('line\nbreak', T0 + MIN)], T0), [true, true, false]);
    const db = open[0]!;
    assert.equal(overflowRows(db), 0);
    assert.equal(logRows(db), 1);
    const b = new SqliteNonceLog(await connect());
    assert.deepEqual(b.consume([req('line\nbreak', T0 + MIN), req('plain', T0 + MIN), req('line', T0 + MIN), req('break', T0 + MIN)], T0 + 1), [false, false, true, true]);
  });

  it('fingerprints alike on every connection to one database (its seed), unlike another database', async () => {
    const seedOf = (db: Db) => (db.prepare('SELECT seed FROM nonce_seed').get() as { seed: Buffer }).seed;
    const one = await connect();
    const two = await connect();
    assert.equal(seedOf(one).length, 8);
    assert.deepEqual(seedOf(one), seedOf(two));
    const otherPath = join(fx.dir, 'other.db');
    await new SqliteStore(otherPath).close();
    const other = new Database(otherPath);
    open.push(other);
    assert.notDeepEqual(seedOf(other), seedOf(one));
    // Same key, same fingerprint on both connections: what one writes the other reads as the same nonce.
    new SqliteNonceLog(one).consume([req('shared', T0 + MIN)], T0);
    const { key: blob } = one.prepare('SELECT key FROM nonce_log ORDER BY id DESC LIMIT 1').get() as { key: Buffer };
    const reader = new SqliteNonceLog(two);
    assert.deepEqual(reader.consume([req('shared', T0 + MIN)], T0 + 1), [false]);
    const index = Reflect.get(reader, 'live') as { has(key: string, now: number): boolean; lastA: number; lastB: number };
    index.has('shared', T0 + 1);
    assert.equal(blob.readInt32LE(1), index.lastA);
    assert.equal(blob.readInt32LE(5), index.lastB);
    assert.equal(blob.readDoubleLE(9), T0 + MIN);
  });

  it('refuses to decide (throws) on a log row of a format it does not know', async () => {
    const db = await connect();
    db.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?)').run(Buffer.from([2, 0, 0, 0]), T0 + MIN);
    const nonces = new SqliteNonceLog(db);
    assert.throws(() => nonces.consume([req('any', T0 + MIN)], T0), /unknown format/);
    // Nothing of the failed batch is remembered.
    assert.equal(nonces.size, 0);
  });

  it('past its memory limit records nonces in the key-ordered table, still exact', async () => {
    const db = await connect();
    const nonces = new SqliteNonceLog(db, 3);
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
    const other = new SqliteNonceLog(await connect(), 1);
    assert.deepEqual(other.consume([req('g', T0 + 3 * MIN), req('g2', T0 + 3 * MIN), req('h', T0 + 3 * MIN)], T0 + 2 * MIN), [false, false, true]);
    assert.equal(other.size, 1);
    // What it read from the log and had no room for is in the table by fingerprint (the log holds no keys).
    const byFingerprint = (db.prepare("SELECT count(*) AS n FROM nonces WHERE key LIKE char(0) || 'fp:%'").get() as { n: number }).n;
    assert.ok(byFingerprint >= 1, `fingerprint rows: ${byFingerprint}`);
    // And a third connection, as short of room, refuses them too, through those rows.
    const third = new SqliteNonceLog(await connect(), 1);
    assert.deepEqual(third.consume([req('g', T0 + 3 * MIN), req('g2', T0 + 3 * MIN), req('h', T0 + 3 * MIN), req('i', T0 + 3 * MIN)], T0 + 2 * MIN), [false, false, false, true]);
  });

  it('records a nonce its memory index cannot place in the key-ordered table, still exact', async () => {
    const db = await connect();
    const nonces = new SqliteNonceLog(db);
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
    const other = new SqliteNonceLog(await connect());
    assert.deepEqual(other.consume([req(crowd[64]!, T0 + MIN), req(crowd[0]!, T0 + MIN)], T0 + 2), [false, false]);
  });

  it('sweeps expired rows out of the log, never the newest', async () => {
    const db = await connect();
    const nonces = new SqliteNonceLog(db);
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


  it('refuses to decide (throws) on a text row: no released version wrote one', async () => {
    const db = await connect();
    db.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?)').run('text-row', T0 + MIN);
    const nonces = new SqliteNonceLog(db);
    assert.throws(() => nonces.consume([req('any', T0 + MIN)], T0), /text row/);
    assert.equal(nonces.size, 0);
  });


  it('still refuses what the table recorded, once a store is switched from the table to the log', async () => {
    const db = await connect();
    assert.deepEqual(new SqliteNonceTable(db).consume([req('before', T0 + MIN)], T0), [true]);
    const log = new SqliteNonceLog(await connect());
    assert.deepEqual(log.consume([req('before', T0 + MIN), req('after', T0 + MIN)], T0 + 1), [false, true]);
  });
});

describe('SqliteStore nonceMemoryLimit', () => {
  it('rejects a limit that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => new SqliteStore(':memory:', { nonceMemoryLimit: bad }), RangeError);
    }
    return assert.rejects(openStore(':memory:', { nonceMemoryLimit: 0 }), RangeError);
  });


  it('is passed on by openStore with the log on: past it, nonces go to the key-ordered table, and replays are still refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-nonce-limit-'));
    try {
      const overflowAfter = async (limit: number | undefined): Promise<number> => {
        const path = join(dir, `limit-${limit ?? 'default'}.db`);
        const store = await openStore(path, limit === undefined ? { sqliteNonceLog: true } : { sqliteNonceLog: true, nonceMemoryLimit: limit });
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
