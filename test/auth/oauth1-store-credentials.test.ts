/** @module test/auth/oauth1-store-credentials — the scheme's view of store.oauth1 (SQLite): secrets opened, consumers reused for a second, tokens read every time. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from '../helpers/node-test.js';
import { sealConsumerSecret, sealTokenSecret, storeCredentials } from '../../src/auth/oauth1/store-credentials.js';
import { SecretBox } from '../../src/auth/secret-box.js';
import { hashToken } from '../../src/auth/tokens.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';

describe('storeCredentials', () => {
  const box = new SecretBox(randomBytes(32));
  let store: Store;
  const clock = { now: 1_700_000_000_000 };
  before(async () => {
    store = await openStore(':memory:');
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'x' });
    await store.oauth1.createConsumer({ clientId: 'c1', sealedSecret: sealConsumerSecret(box, 'c1', 'shared'), rsaPublicKey: null, callbacks: ['https://app.example/cb'], userName: 'ann' });
    await store.oauth1.createConsumer({ clientId: 'rsa-only', sealedSecret: null, rsaPublicKey: '-----BEGIN PUBLIC KEY-----\n…', callbacks: [], userName: null });
    const temporary = hashToken('temp');
    await store.oauth1.saveTemporaryCredentials({ tokenHash: temporary, sealedSecret: sealTokenSecret(box, temporary, 'x'), clientId: 'c1', callback: 'oob', expiresAtMs: clock.now + 60_000 }, clock.now, 5);
    await store.oauth1.approveTemporaryCredentials(temporary, { verifierHash: 'v', userName: 'ann' }, clock.now);
    const tokenHash = hashToken('tok');
    await store.oauth1.exchangeTemporaryCredentials(temporary, clock.now, () => true, (a) => ({ tokenHash, sealedSecret: sealTokenSecret(box, tokenHash, 'token-secret'), clientId: a.clientId, userName: a.userName }));
  });
  after(() => store.close());

  it('opens consumers\' secrets and maps their fields', async () => {
    const creds = storeCredentials(store.oauth1, box, { now: () => clock.now });
    assert.deepEqual(await creds.getConsumer('c1'), { key: 'c1', secret: 'shared', rsaPublicKey: undefined, callbacks: ['https://app.example/cb'], userName: 'ann' });
    assert.deepEqual(await creds.getConsumer('rsa-only'), { key: 'rsa-only', secret: undefined, rsaPublicKey: '-----BEGIN PUBLIC KEY-----\n…', callbacks: [], userName: undefined });
    assert.equal(await creds.getConsumer('nobody'), undefined);
  });
  it('finds access tokens by their hash and opens their secret; revoked ones are gone at once', async () => {
    const creds = storeCredentials(store.oauth1, box, { now: () => clock.now });
    assert.deepEqual(await creds.getAccessToken('tok'), { secret: 'token-secret', consumerKey: 'c1', userName: 'ann' });
    assert.equal(await creds.getAccessToken('temp'), undefined, 'temporary credentials are not access tokens');
    assert.equal(await store.oauth1.revokeTokenCredentials({ clientId: 'c1' }), 1);
    assert.equal(await creds.getAccessToken('tok'), undefined);
  });
  it('reuses a consumer for a second: a removed client stops within it', async () => {
    const creds = storeCredentials(store.oauth1, box, { now: () => clock.now });
    await store.oauth1.createConsumer({ clientId: 'brief', sealedSecret: sealConsumerSecret(box, 'brief', 's'), rsaPublicKey: null, callbacks: [], userName: null });
    assert.equal((await creds.getConsumer('brief'))?.secret, 's');
    assert.equal(await store.oauth1.removeConsumer('brief'), true);
    assert.equal((await creds.getConsumer('brief'))?.secret, 's', 'still cached');
    clock.now += 1000;
    assert.equal(await creds.getConsumer('brief'), undefined);
  });
  it('does not open a secret sealed for another client (a copied row)', async () => {
    await store.oauth1.createConsumer({ clientId: 'copy', sealedSecret: sealConsumerSecret(box, 'c1', 'shared'), rsaPublicKey: null, callbacks: [], userName: null });
    const creds = storeCredentials(store.oauth1, box, { now: () => clock.now });
    await assert.rejects(Promise.resolve(creds.getConsumer('copy')), { status: 500, code: 'ROA_ERR_OAUTH1_SECRET_UNREADABLE' });
  });
});
