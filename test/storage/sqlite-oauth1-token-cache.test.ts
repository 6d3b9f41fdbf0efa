/**
 * @module test/storage/sqlite-oauth1-token-cache
 * SQLite's OAuth 1 token credentials are read through the token-row cache (storage/sqlite/token-row-cache):
 * every way a row can change — a revocation by client or user (`roa client revoke`, `roa user password`),
 * a removed consumer or user, another store, another connection, another process — is seen at once.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { HttpError } from '../../src/errors/http-error.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

const NOW = Date.now();

async function withStore(test: (store: SqliteStore, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'roa-sqlite-oauth1-tokens-'));
  const path = join(dir, 'roa.db');
  const store = new SqliteStore(path);
  try {
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'scrypt$x' });
    await store.createUser({ name: 'bob', role: 'reader', passwordHash: 'scrypt$x' });
    await store.oauth1.createConsumer({ clientId: 'c1', sealedSecret: 'sealed', rsaPublicKey: null, callbacks: [], userName: null });
    await store.oauth1.createConsumer({ clientId: 'c2', sealedSecret: 'sealed', rsaPublicKey: null, callbacks: [], userName: null });
    await test(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Token credentials `hash` for `userName` through `clientId`, issued by the real exchange. */
async function issue(store: SqliteStore, hash: string, clientId = 'c1', userName = 'ann'): Promise<void> {
  const temporary = `tmp-${hash}`;
  assert.equal(await store.oauth1.saveTemporaryCredentials({ tokenHash: temporary, sealedSecret: 's', clientId, callback: 'oob', expiresAtMs: NOW + 60_000 }, NOW, 100), true);
  assert.equal(await store.oauth1.approveTemporaryCredentials(temporary, { verifierHash: 'v', userName }, NOW), true);
  const done = await store.oauth1.exchangeTemporaryCredentials(temporary, NOW, () => true, (t) => ({ tokenHash: hash, sealedSecret: 'sealed', clientId: t.clientId, userName: t.userName }));
  assert.equal(done.status, 'issued');
}

const revoked = async (store: SqliteStore, hash: string): Promise<boolean | undefined> => (await store.oauth1.getTokenCredentials(hash))?.revoked;

describe('SQLite OAuth 1 token credentials: cached rows never outlive a change', () => {
  it('sees its own writes at once, within the same turn: revocation by client, by user, a password change, a removed consumer or user', async () => {
    await withStore(async (store) => {
      await issue(store, 't1');
      assert.equal(await revoked(store, 't1'), false);
      assert.equal(store.oauth1.getTokenCredentialsNow('t1')?.revoked, false);
      assert.equal(await store.oauth1.revokeTokenCredentials({ clientId: 'c1' }), 1);
      assert.equal(await revoked(store, 't1'), true);
      assert.equal(store.oauth1.getTokenCredentialsNow('t1')?.revoked, true);

      await issue(store, 't2', 'c2', 'bob');
      assert.equal(await revoked(store, 't2'), false);
      assert.equal(await store.oauth1.revokeTokenCredentials({ userName: 'bob' }), 1);
      assert.equal(await revoked(store, 't2'), true);

      // `roa user password`: setUserPassword, then revokeUserTokens in one transaction.
      await issue(store, 't3', 'c2', 'ann');
      assert.equal(await revoked(store, 't3'), false);
      await store.setUserPassword('ann', 'scrypt$y');
      await store.revokeUserTokens('ann');
      assert.equal(await revoked(store, 't3'), true);

      await issue(store, 't4', 'c2', 'bob');
      assert.equal(await revoked(store, 't4'), false);
      assert.equal(await store.oauth1.removeConsumer('c2'), true);
      assert.equal(await store.oauth1.getTokenCredentials('t4'), undefined);

      await issue(store, 't5', 'c1', 'bob');
      assert.ok(await store.oauth1.getTokenCredentials('t5'));
      assert.equal(await store.removeUser('bob'), true);
      assert.equal(await store.oauth1.getTokenCredentials('t5'), undefined);
    });
  });

  it('sees a revocation by another store of this process at once', async () => {
    await withStore(async (store, path) => {
      await issue(store, 'b1');
      assert.equal(await revoked(store, 'b1'), false);
      const other = new SqliteStore(path);
      try {
        await other.oauth1.revokeTokenCredentials({ userName: 'ann' });
      } finally {
        await other.close();
      }
      assert.equal(await revoked(store, 'b1'), true);
    });
  });

  it('sees a commit by another connection from the next event-loop turn on', async () => {
    await withStore(async (store, path) => {
      await issue(store, 'c1-token');
      assert.equal(await revoked(store, 'c1-token'), false);
      const raw = new Database(path);
      raw.prepare('UPDATE oauth1_token_credentials SET revoked = 1 WHERE token_hash = ?').run('c1-token');
      raw.close();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(await revoked(store, 'c1-token'), true);
    });
  });

  it('sees a revocation by another process (the CLI), even without a turn in between', async () => {
    await withStore(async (store, path) => {
      await issue(store, 'd1');
      assert.equal(await revoked(store, 'd1'), false);
      const script = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.prepare("UPDATE oauth1_token_credentials SET revoked = 1 WHERE token_hash = 'd1'").run(); db.close();`;
      const child = spawnSync(process.execPath, ['-e', script, path], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      // spawnSync blocked this turn for well over a millisecond: data_version is read again.
      assert.equal(await revoked(store, 'd1'), true);
    });
  });

  it('fails a read on a closed database with a store error, cached row or not', async () => {
    const store = new SqliteStore(':memory:');
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'scrypt$x' });
    await store.oauth1.createConsumer({ clientId: 'c1', sealedSecret: 'sealed', rsaPublicKey: null, callbacks: [], userName: null });
    await issue(store, 'e1');
    assert.ok(store.oauth1.getTokenCredentialsNow('e1'));
    await store.close();
    for (const hash of ['e1', 'unknown']) {
      assert.throws(() => store.oauth1.getTokenCredentialsNow(hash), (err: unknown) => err instanceof HttpError && err.status >= 500);
      await assert.rejects(store.oauth1.getTokenCredentials(hash), (err: unknown) => err instanceof HttpError && err.status >= 500);
    }
  });
});
