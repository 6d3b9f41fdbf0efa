/**
 * @module test/auth/oauth1-provider
 * The OAuth 1.0a provider's limits and lifetimes, with their defaults: unused temporary credentials
 * per client (429 past it), the 10-minute life of temporary credentials and verifiers.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HttpError } from '../../src/errors/http-error.js';
import { DEFAULT_MAX_LIVE_TEMPORARY, DEFAULT_TEMPORARY_TTL_MS, OAuth1Provider } from '../../src/auth/oauth1-flow/oauth1-provider.js';
import { SecretBox } from '../../src/auth/secret-box.js';
import { hashToken } from '../../src/auth/tokens.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

describe('OAuth1Provider', () => {
  let store: SqliteStore;
  const box = new SecretBox(randomBytes(32));
  let now = 1_800_000_000_000;
  const clock = () => now;

  before(async () => {
    store = new SqliteStore(':memory:');
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'x' });
    await store.oauth1.createConsumer({ clientId: 'c', sealedSecret: null, rsaPublicKey: null, callbacks: [], userName: null });
  });
  after(() => store.close());

  it('defaults: 10 minutes, 1000 unused temporary credentials per client; longer lives are refused at construction', () => {
    assert.equal(DEFAULT_TEMPORARY_TTL_MS, 600_000);
    assert.equal(DEFAULT_MAX_LIVE_TEMPORARY, 1000);
    assert.throws(() => new OAuth1Provider({ store, box, temporaryTtlMs: 600_001 }), RangeError);
    assert.throws(() => new OAuth1Provider({ store, box, maxLiveTemporary: 0 }), RangeError);
  });

  it('past the limit of unused temporary credentials answers 429 with Retry-After, until some expire', async () => {
    const provider = new OAuth1Provider({ store, box, maxLiveTemporary: 2, now: clock });
    await provider.issueTemporary('c', 'oob');
    await provider.issueTemporary('c', 'oob');
    await assert.rejects(provider.issueTemporary('c', 'oob'), (e: unknown) => e instanceof HttpError && e.status === 429 && e.headers?.['Retry-After'] === '600');
    now += DEFAULT_TEMPORARY_TTL_MS;
    await provider.issueTemporary('c', 'oob');
  });

  it('the default limit holds at 1000', async () => {
    await store.oauth1.createConsumer({ clientId: 'busy', sealedSecret: null, rsaPublicKey: null, callbacks: [], userName: null });
    const provider = new OAuth1Provider({ store, box, now: clock });
    for (let i = 0; i < DEFAULT_MAX_LIVE_TEMPORARY; i++) await provider.issueTemporary('busy', 'oob');
    await assert.rejects(provider.issueTemporary('busy', 'oob'), (e: unknown) => e instanceof HttpError && e.status === 429);
  });

  it('a verifier is good once, for the approving user, within the life of the temporary credentials', async () => {
    const provider = new OAuth1Provider({ store, box, temporaryTtlMs: 60_000, now: clock });
    const t = await provider.issueTemporary('c', 'https://c.example/cb');
    assert.deepEqual(await provider.pending(t.token), { clientId: 'c', callback: 'https://c.example/cb' });
    assert.equal((await provider.getTemporaryToken(t.token))?.secret, t.secret);
    const verifier = (await provider.approve(t.token, 'ann'))!;
    assert.match(verifier, /^[\w-]{22}$/);
    assert.equal(await provider.pending(t.token), undefined, 'answered');
    assert.equal(await provider.approve(t.token, 'ann'), undefined, 'approved once');
    now += 60_000;
    assert.equal(await provider.exchange(t.token, verifier), undefined, 'expired');

    const u = await provider.issueTemporary('c', 'oob');
    const v = (await provider.approve(u.token, 'ann'))!;
    const issued = (await provider.exchange(u.token, v))!;
    const stored = await store.oauth1.getTokenCredentials(hashToken(issued.token));
    assert.equal(stored?.userName, 'ann');
    assert.equal(stored?.clientId, 'c');
    assert.ok(!JSON.stringify(stored).includes(issued.secret), 'the secret is stored sealed');
  });
});
