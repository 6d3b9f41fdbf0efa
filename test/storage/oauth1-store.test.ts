/** @module test/storage/oauth1-store The OAuth 1.0a records (store.oauth1) on SQLite, and on PostgreSQL in a schema of its own. */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { HttpError } from '../../src/errors/http-error.js';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL } from '../helpers/services.js';

const SCHEMA = `roa_test_oauth1_${randomBytes(5).toString('hex')}`;
const pgSkip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(TEST_PG_URL)} (set ROA_TEST_PG_URL)`);

const uniq = (p: string): string => `${p}-${randomUUID().slice(0, 8)}`;
const NOW = 1_800_000_000_000;
const MINUTE = 60_000;

function contract(name: string, open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>, skip: string | false): void {
  describe(`${name}: OAuth 1 records`, () => {
    const { it, before, after } = suiteNeeding(skip);
    let store: Store;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await open());
      await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'x' });
      await store.createUser({ name: 'bob', role: 'reader', passwordHash: 'x' });
    });
    after(() => cleanup?.());

    async function consumer(callbacks: string[] = []): Promise<string> {
      const clientId = uniq('c');
      await store.oauth1.createConsumer({ clientId, sealedSecret: 'sealed', rsaPublicKey: null, callbacks, userName: null });
      return clientId;
    }

    async function approvedTemporary(clientId: string, user = 'ann', expiresAtMs = NOW + 10 * MINUTE): Promise<string> {
      const tokenHash = uniq('t');
      assert.equal(await store.oauth1.saveTemporaryCredentials({ tokenHash, sealedSecret: 's', clientId, callback: 'oob', expiresAtMs }, NOW, 100), true);
      assert.equal(await store.oauth1.approveTemporaryCredentials(tokenHash, { verifierHash: 'v-' + tokenHash, userName: user }, NOW), true);
      return tokenHash;
    }

    it('keeps consumers with callbacks and an optional key, one id among OAuth 1 and OAuth 2 clients', async () => {
      const clientId = uniq('c');
      const made = await store.oauth1.createConsumer({ clientId, sealedSecret: null, rsaPublicKey: 'PEM', callbacks: ['https://a.example/cb', 'oob'], userName: 'ann' });
      const got = await store.oauth1.getConsumer(clientId);
      assert.deepEqual(got, made);
      assert.deepEqual(got?.callbacks, ['https://a.example/cb', 'oob']);
      assert.ok((await store.oauth1.listConsumers()).some((c) => c.clientId === clientId));
      const clash = (e: unknown) => e instanceof HttpError && e.code === 'ROA_ERR_CLIENT_EXISTS';
      await assert.rejects(store.oauth1.createConsumer({ ...made }), clash);
      const oauth2 = uniq('o2');
      await store.createClient({ clientId: oauth2, secretHash: 'h', userName: 'ann', scopes: [] });
      await assert.rejects(store.oauth1.createConsumer({ ...made, clientId: oauth2 }), clash);
      await assert.rejects(store.oauth1.createConsumer({ ...made, clientId: uniq('c'), userName: 'nobody' }),
        (e: unknown) => e instanceof HttpError && e.code === 'ROA_ERR_USER_NOT_FOUND');
    });

    it('temporary credentials are approved once, expire, and are capped per consumer', async () => {
      const clientId = await consumer();
      const tokenHash = uniq('t');
      const t = { tokenHash, sealedSecret: 's', clientId, callback: 'https://a.example/cb', expiresAtMs: NOW + MINUTE };
      assert.equal(await store.oauth1.saveTemporaryCredentials(t, NOW, 2), true);
      assert.deepEqual(await store.oauth1.getTemporaryCredentials(tokenHash, NOW), { ...t, verifierHash: null, userName: null });
      assert.equal(await store.oauth1.getTemporaryCredentials(tokenHash, NOW + MINUTE), undefined, 'expired');
      assert.equal(await store.oauth1.approveTemporaryCredentials(tokenHash, { verifierHash: 'v', userName: 'ann' }, NOW + MINUTE), false, 'expired');
      assert.equal(await store.oauth1.approveTemporaryCredentials(tokenHash, { verifierHash: 'v', userName: 'ann' }, NOW), true);
      assert.equal(await store.oauth1.approveTemporaryCredentials(tokenHash, { verifierHash: 'w', userName: 'bob' }, NOW), false, 'approved once');
      assert.equal((await store.oauth1.getTemporaryCredentials(tokenHash, NOW))?.userName, 'ann');
      assert.equal(await store.oauth1.saveTemporaryCredentials({ ...t, tokenHash: uniq('t') }, NOW, 2), true);
      assert.equal(await store.oauth1.saveTemporaryCredentials({ ...t, tokenHash: uniq('t') }, NOW, 2), false, 'limit of live ones');
      // Once the first two expired they are pruned and no longer count.
      assert.equal(await store.oauth1.saveTemporaryCredentials({ ...t, tokenHash: uniq('t'), expiresAtMs: NOW + 3 * MINUTE }, NOW + 2 * MINUTE, 2), true);
      assert.equal(await store.oauth1.deletePendingTemporaryCredentials(tokenHash), false, 'pruned');
    });

    it('a denial deletes pending temporary credentials only: an approval already given stands', async () => {
      const clientId = await consumer();
      const pending = uniq('t');
      const approved = uniq('t');
      for (const tokenHash of [pending, approved]) {
        assert.equal(await store.oauth1.saveTemporaryCredentials({ tokenHash, sealedSecret: 's', clientId, callback: 'oob', expiresAtMs: NOW + MINUTE }, NOW, 5), true);
      }
      assert.equal(await store.oauth1.approveTemporaryCredentials(approved, { verifierHash: 'v', userName: 'ann' }, NOW), true);
      assert.equal(await store.oauth1.deletePendingTemporaryCredentials(approved), false);
      assert.equal((await store.oauth1.getTemporaryCredentials(approved, NOW))?.userName, 'ann');
      assert.equal(await store.oauth1.deletePendingTemporaryCredentials(pending), true);
      assert.equal(await store.oauth1.getTemporaryCredentials(pending, NOW), undefined);
      assert.equal(await store.oauth1.deletePendingTemporaryCredentials(pending), false, 'once');
    });

    it('exchanges approved temporary credentials once, and a wrong verifier or an expired one burns them', async () => {
      const clientId = await consumer();
      const issue = ({ userName }: { userName: string }) => ({ tokenHash: uniq('a'), sealedSecret: 'as', clientId, userName });
      const ok = await approvedTemporary(clientId);
      const first = await store.oauth1.exchangeTemporaryCredentials(ok, NOW, (v) => v === 'v-' + ok, issue);
      assert.equal(first.status, 'issued');
      assert.ok(first.status === 'issued' && first.token.userName === 'ann' && !first.token.revoked);
      const token = first.status === 'issued' ? first.token : undefined;
      assert.deepEqual(await store.oauth1.getTokenCredentials(token!.tokenHash), token);
      assert.deepEqual(await store.oauth1.exchangeTemporaryCredentials(ok, NOW, () => true, issue), { status: 'refused' }, 'single use');

      const wrong = await approvedTemporary(clientId);
      assert.deepEqual(await store.oauth1.exchangeTemporaryCredentials(wrong, NOW, () => false, issue), { status: 'refused' });
      assert.deepEqual(await store.oauth1.exchangeTemporaryCredentials(wrong, NOW, () => true, issue), { status: 'refused' }, 'burnt');

      const late = await approvedTemporary(clientId, 'ann', NOW + MINUTE);
      assert.deepEqual(await store.oauth1.exchangeTemporaryCredentials(late, NOW + MINUTE, () => true, issue), { status: 'refused' });

      const pending = uniq('t');
      await store.oauth1.saveTemporaryCredentials({ tokenHash: pending, sealedSecret: 's', clientId, callback: 'oob', expiresAtMs: NOW + MINUTE }, NOW, 100);
      assert.deepEqual(await store.oauth1.exchangeTemporaryCredentials(pending, NOW, () => true, issue), { status: 'refused' }, 'not approved');
    });

    it('two racing exchanges issue one token', async () => {
      const clientId = await consumer();
      const t = await approvedTemporary(clientId);
      const issue = ({ userName }: { userName: string }) => ({ tokenHash: uniq('a'), sealedSecret: 'as', clientId, userName });
      const results = await Promise.all([1, 2, 3].map(() => store.oauth1.exchangeTemporaryCredentials(t, NOW, () => true, issue)));
      assert.equal(results.filter((r) => r.status === 'issued').length, 1);
    });

    it('revokes by user, by consumer, and on a password change; removing a consumer or user removes its credentials', async () => {
      const c1 = await consumer();
      const c2 = await consumer();
      const issued: Record<string, string> = {};
      for (const [key, clientId, user] of [['ann1', c1, 'ann'], ['ann2', c2, 'ann'], ['bob1', c1, 'bob'], ['bob2', c2, 'bob']] as const) {
        const t = await approvedTemporary(clientId, user);
        const r = await store.oauth1.exchangeTemporaryCredentials(t, NOW, () => true, ({ userName }) => ({ tokenHash: uniq(key), sealedSecret: 's', clientId, userName }));
        assert.equal(r.status, 'issued');
        issued[key] = r.status === 'issued' ? r.token.tokenHash : '';
      }
      const revoked = async (key: string) => (await store.oauth1.getTokenCredentials(issued[key]!))?.revoked;
      assert.equal(await store.oauth1.revokeTokenCredentials({ userName: 'bob', clientId: c1 }), 1);
      assert.deepEqual([await revoked('bob1'), await revoked('bob2')], [true, false]);
      assert.equal(await store.oauth1.revokeTokenCredentials({ clientId: c2, userName: 'ann' }), 1);
      assert.equal(await revoked('ann2'), true);
      assert.ok((await store.revokeUserTokens('bob')) >= 1, 'a password change reaches OAuth 1 token credentials');
      assert.equal(await revoked('bob2'), true);
      assert.equal(await revoked('ann1'), false);
      await assert.rejects(store.oauth1.revokeTokenCredentials({}), TypeError);

      const pending = await approvedTemporary(c1);
      assert.equal(await store.oauth1.removeConsumer(c1), true);
      assert.equal(await store.oauth1.getTokenCredentials(issued.ann1!), undefined);
      assert.equal(await store.oauth1.getTemporaryCredentials(pending, NOW), undefined);
      assert.equal(await store.oauth1.removeConsumer(c1), false);
      const c3 = await consumer();
      await store.createUser({ name: 'cy-' + c3, role: 'reader', passwordHash: 'x' });
      const t = await approvedTemporary(c3, 'cy-' + c3);
      const r = await store.oauth1.exchangeTemporaryCredentials(t, NOW, () => true, ({ userName }) => ({ tokenHash: uniq('cy'), sealedSecret: 's', clientId: c3, userName }));
      assert.ok(r.status === 'issued');
      await store.removeUser('cy-' + c3);
      assert.equal(await store.oauth1.getTokenCredentials(r.token.tokenHash), undefined);
    });
  });
}

contract('SqliteStore', async () => {
  const store = new SqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
}, false);

contract('PostgresStore', async () => {
  const store = await PostgresStore.open({ connectionString: TEST_PG_URL, schema: SCHEMA });
  return {
    store,
    cleanup: async () => {
      await store.close();
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
      await client.end();
    },
  };
}, pgSkip);
