/**
 * @module test/auth/oauth-rotation — refresh-token rotation when two service instances share one
 * database: the same refresh token presented to both at once must leave no live token behind.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
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
  const active = async (token: string) => (await services[0]!.introspect(new URLSearchParams({ token }))).active;

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
