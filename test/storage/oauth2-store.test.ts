/** @module test/storage/oauth2-store Redirect URIs and authorization codes (store.oauth2) on SQLite, and on PostgreSQL in a schema of its own. */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { HttpError } from '../../src/errors/http-error.js';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { NewToken, Store } from '../../src/storage/store.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL } from '../helpers/services.js';

const SCHEMA = `roa_test_oauth2_${randomBytes(5).toString('hex')}`;
const pgSkip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(TEST_PG_URL)} (set ROA_TEST_PG_URL)`);

const uniq = (p: string): string => `${p}-${randomUUID().slice(0, 8)}`;
const NOW = Date.now();

function contract(name: string, open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>, skip: string | false): void {
  describe(`${name}: OAuth 2 codes`, () => {
    const { it, before, after } = suiteNeeding(skip);
    let store: Store;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await open());
      await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'x' });
    });
    after(() => cleanup?.());

    async function client(uris = ['https://app.example/cb']): Promise<string> {
      const clientId = uniq('c');
      await store.oauth2.createClient({ clientId, secretHash: '', userName: 'ann', scopes: ['articles:read'], redirectUris: uris });
      return clientId;
    }

    function code(clientId: string, familyId = randomUUID()) {
      return { hash: uniq('h'), clientId, userName: 'ann', redirectUri: 'https://app.example/cb', scopes: ['articles:read'], codeChallenge: 'c'.repeat(43), familyId, expiresAtMs: NOW + 600_000 };
    }

    function tokens(clientId: string, familyId: string): NewToken[] {
      return [{ hash: uniq('t'), kind: 'access', clientId, userName: 'ann', scopes: ['articles:read'], familyId, expiresAt: new Date(NOW + 900_000) }];
    }

    it('registers a public client with its redirect URIs in order, in one step', async () => {
      const id = await client(['https://b.example/cb', 'http://127.0.0.1/cb', 'com.example.app:/cb']);
      assert.deepEqual(await store.oauth2.redirectUris(id), ['https://b.example/cb', 'http://127.0.0.1/cb', 'com.example.app:/cb']);
      assert.equal((await store.getClient(id))?.secretHash, '');
      await assert.rejects(store.oauth2.createClient({ clientId: id, secretHash: '', userName: 'ann', scopes: [], redirectUris: ['https://x.example/'] }), (e: HttpError) => e.code === 'ROA_ERR_CLIENT_EXISTS');
      await assert.rejects(store.oauth2.createClient({ clientId: uniq('c'), secretHash: '', userName: 'nobody', scopes: [], redirectUris: ['https://x.example/'] }), (e: HttpError) => e.code === 'ROA_ERR_USER_NOT_FOUND');
      assert.deepEqual(await store.oauth2.redirectUris(id), ['https://b.example/cb', 'http://127.0.0.1/cb', 'com.example.app:/cb'], 'a refused duplicate adds nothing');
      assert.deepEqual(await store.oauth2.redirectUris('no-such-client'), []);
    });

    it('redeems a code once: the first exchange saves its tokens, a second revokes them', async () => {
      const id = await client();
      const c = code(id);
      await store.oauth2.saveCode(c);
      assert.deepEqual(await store.oauth2.getCode(c.hash), { ...c, usedAtMs: null });
      const issued = tokens(id, c.familyId);
      assert.equal(await store.oauth2.redeemCode(c.hash, issued, NOW), 'ok');
      assert.equal((await store.getToken(issued[0]!.hash))?.revoked, false);
      assert.equal((await store.oauth2.getCode(c.hash))?.usedAtMs, NOW);
      const again = tokens(id, c.familyId);
      assert.equal(await store.oauth2.redeemCode(c.hash, again, NOW + 1), 'reused');
      assert.equal((await store.getToken(issued[0]!.hash))?.revoked, true);
      assert.equal(await store.getToken(again[0]!.hash), undefined, 'a replay saves nothing');
      assert.equal(await store.oauth2.redeemCode(uniq('none'), [], NOW), 'missing');
    });

    it('lets exactly one of two racing exchanges of one code win', async () => {
      const id = await client();
      const c = code(id);
      await store.oauth2.saveCode(c);
      const [a, b] = [tokens(id, c.familyId), tokens(id, c.familyId)];
      const outcomes = await Promise.all([store.oauth2.redeemCode(c.hash, a, NOW), store.oauth2.redeemCode(c.hash, b, NOW)]);
      assert.deepEqual([...outcomes].sort(), ['ok', 'reused']);
      const winner = outcomes[0] === 'ok' ? a : b;
      assert.equal((await store.getToken(winner[0]!.hash))?.revoked, true, 'the loser revoked what the winner saved');
    });

    it("spends the user's unused codes when their tokens are revoked (a password change)", async () => {
      const id = await client();
      const c = code(id);
      await store.oauth2.saveCode(c);
      await store.revokeUserTokens('ann');
      assert.notEqual((await store.oauth2.getCode(c.hash))?.usedAtMs, null);
      const late = tokens(id, c.familyId);
      assert.equal(await store.oauth2.redeemCode(c.hash, late, NOW), 'reused');
      assert.equal(await store.getToken(late[0]!.hash), undefined);
    });

    it('removes codes and redirect URIs with their client', async () => {
      const id = await client();
      const c = code(id);
      await store.oauth2.saveCode(c);
      assert.equal(await store.removeClient(id), true);
      assert.equal(await store.oauth2.getCode(c.hash), undefined);
      assert.deepEqual(await store.oauth2.redirectUris(id), []);
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
