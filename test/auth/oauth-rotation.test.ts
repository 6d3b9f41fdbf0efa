/**
 * @module test/auth/oauth-rotation — refresh-token rotation when two service instances share one
 * database: the same refresh token presented to both at once must leave no live token behind.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from '../helpers/node-test.js';
import { OAuthError } from '../../src/auth/oauth-errors.js';
import { OAuthTokenService } from '../../src/auth/oauth-token.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { openStore } from '../../src/storage/open-store.js';
import type { OAuthClient, Store } from '../../src/storage/store.js';

describe('refresh-token rotation across instances sharing a SQLite file', () => {
  let dir: string;
  let stores: Store[];
  let services: OAuthTokenService[];
  let client: OAuthClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'roa-rotation-'));
    const file = join(dir, 'roa.db');
    stores = [await openStore(file), await openStore(file)];
    await stores[0]!.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('pw-ann', { N: 1024, r: 8, p: 1 }) });
    client = await stores[0]!.createClient({ clientId: 'cli', secretHash: generateClientSecret().secretHash, userName: 'ann', scopes: ['articles:read'] });
    services = stores.map((store) => new OAuthTokenService({ store, issuer: 'http://127.0.0.1/' }));
  });
  after(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const grant = (params: Record<string, string>, at = 0) => services[at]!.token(new URLSearchParams(params), client);
  const active = async (token: string) => (await services[0]!.introspect(new URLSearchParams({ token }), client)).active;

  it('answers one of two simultaneous refreshes and revokes what that one issued', async () => {
    for (let round = 0; round < 20; round++) {
      const first = await grant({ grant_type: 'password', username: 'ann', password: 'pw-ann' });
      const refresh = { grant_type: 'refresh_token', refresh_token: first.refresh_token! };
      const outcomes = await Promise.allSettled([grant(refresh, 0), grant(refresh, 1)]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      assert.equal(won.length, 1, `round ${round}: exactly one refresh succeeds`);
      assert.ok(lost[0]!.reason instanceof OAuthError && lost[0]!.reason.error === 'invalid_grant', String(lost[0]!.reason));
      // The loser saw a reuse: the family is dead, the winner's new tokens included.
      const issued = (won[0] as PromiseFulfilledResult<{ access_token: string; refresh_token?: string }>).value;
      assert.equal(await active(issued.access_token), false, `round ${round}: the winner's access token is revoked`);
      assert.equal(await active(issued.refresh_token!), false, `round ${round}: the winner's refresh token is revoked`);
      await assert.rejects(grant({ grant_type: 'refresh_token', refresh_token: issued.refresh_token! }, round % 2), OAuthError);
    }
  });
});

describe('a password grant racing a password change', () => {
  let dir: string;
  let store: Store;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'roa-password-race-'));
    store = await openStore(join(dir, 'roa.db'));
    await store.createUser({ name: 'bo', role: 'editor', passwordHash: await hashPassword('old-pw', { N: 1024, r: 8, p: 1 }) });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps no token when the change (new hash, then revocation) lands between its check and its save', async () => {
    const client = await store.createClient({ clientId: 'first-party', secretHash: generateClientSecret().secretHash, userName: 'bo', scopes: ['articles:read'] });
    const saved: string[] = [];
    let changed = false;
    // The store the token service sees: the password changes, as `roa user password` does it, just
    // before the grant's first token is written.
    const racing = {
      getUser: store.getUser.bind(store),
      getClient: store.getClient.bind(store),
      getToken: store.getToken.bind(store),
      rotateRefreshToken: store.rotateRefreshToken.bind(store),
      revokeToken: store.revokeToken.bind(store),
      revokeFamily: store.revokeFamily.bind(store),
      async saveToken(t: Parameters<Store['saveToken']>[0]) {
        if (!changed) {
          changed = true;
          assert.equal(await store.setUserPassword('bo', await hashPassword('new-pw', { N: 1024, r: 8, p: 1 })), true);
          await store.revokeUserTokens('bo');
        }
        saved.push(t.hash);
        return store.saveToken(t);
      },
    };
    const oauth = new OAuthTokenService({ store: racing, issuer: 'http://127.0.0.1/' });
    await assert.rejects(oauth.token(new URLSearchParams({ grant_type: 'password', username: 'bo', password: 'old-pw' }), client), (err: unknown) => {
      assert.ok(err instanceof OAuthError && err.error === 'invalid_grant', String(err));
      return true;
    });
    assert.equal(saved.length, 2, 'an access and a refresh token were written');
    for (const hash of saved) assert.equal((await store.getToken(hash))?.revoked, true, 'a token saved after the revocation is taken back');
  });
});
