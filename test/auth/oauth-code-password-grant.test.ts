/**
 * @module test/auth/oauth-code-password-grant
 * The password grant is opt-in in production (RFC 9700 §2.4): off by default (unsupported_grant_type,
 * not in the metadata), on only for the clients named, and a start-up error when turned on without
 * naming any; development keeps it on.
 */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { createService, type ServiceOptions } from '../../src/service.js';
import { openStore } from '../../src/storage/open-store.js';
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/service.js';

// Through a trusted proxy (loopback) that says https, as production's TLS rule wants.
const HTTPS = { 'x-forwarded-proto': 'https' };

async function withService(opts: ServiceOptions, fn: (svc: TestService, secrets: Record<string, string>) => Promise<void>): Promise<void> {
  const svc = await startTestService(opts);
  try {
    await svc.running.store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('ann-password-long', { N: 1024, r: 8, p: 1 }) });
    const secrets: Record<string, string> = {};
    for (const id of ['first', 'third']) {
      const { clientSecret, secretHash } = generateClientSecret();
      await svc.running.store.createClient({ clientId: id, secretHash, userName: 'ann', scopes: ['articles:read'] });
      secrets[id] = clientSecret;
    }
    await fn(svc, secrets);
  } finally {
    await svc.close();
  }
}

const grant = (svc: TestService, id: string, secret: string) => fetch(svc.base + '/oauth/token', {
  method: 'POST',
  headers: { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64') },
  body: 'grant_type=password&username=ann&password=ann-password-long',
});

const metadata = async (svc: TestService) => (await (await fetch(svc.base + '/.well-known/oauth-authorization-server', { headers: HTTPS })).json()) as { grant_types_supported: string[] };

describe('the password grant in production', () => {
  it('is off by default: unsupported_grant_type, and not in the metadata', async () => {
    await withService({ env: 'production' }, async (svc, secrets) => {
      const res = await grant(svc, 'first', secrets.first!);
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: string }).error, 'unsupported_grant_type');
      assert.deepEqual((await metadata(svc)).grant_types_supported, ['authorization_code', 'client_credentials', 'refresh_token']);
    });
  });

  it('is on for the clients --password-grant-clients names, unauthorized_client for the others', async () => {
    await withService({ env: 'production', passwordGrant: true, passwordGrantClients: ['first'] }, async (svc, secrets) => {
      const first = await grant(svc, 'first', secrets.first!);
      assert.equal(first.status, 200, await first.clone().text());
      const third = await grant(svc, 'third', secrets.third!);
      assert.equal(third.status, 400);
      assert.equal(((await third.json()) as { error: string }).error, 'unauthorized_client');
      assert.ok((await metadata(svc)).grant_types_supported.includes('password'));
    });
  });

  it('stops start-up when turned on without naming clients', async () => {
    const store = await openStore(':memory:');
    try {
      await assert.rejects(createService({ store, env: 'production', passwordGrant: true, serverKey: randomBytes(32), logLevel: 'silent' }), /--password-grant-clients/);
    } finally {
      await store.close();
    }
  });
});

describe('the password grant in development', () => {
  it('stays on for every client by default', async () => {
    await withService({ env: 'development' }, async (svc, secrets) => {
      assert.equal((await grant(svc, 'third', secrets.third!)).status, 200);
    });
  });
});
