/**
 * @module test/integration/hmac-nonce-service
 * The real service's nonce store on SQLite, the table (default) and the log (`sqliteNonceLog`): a
 * replayed nonce is refused, also after a restart on the same file, and concurrent replays of one
 * signed request let exactly one through.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from '../helpers/node-test.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { SecretBox, sealHmacSecret } from '../../src/auth/secret-box.js';
import { signRequest } from '../../src/client/index.js';
import { startService } from '../../src/service.js';
import { send } from '../helpers/service.js';

const dir = mkdtempSync(join(tmpdir(), 'roa-nonce-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const serverKey = randomBytes(32);
const secret = 'nonce-test-secret-0123456789abcdef';
/** As from a TLS terminator on this host (loopback is trusted): production refuses credentials over plain HTTP (issue 26). */
const VIA_TLS = { 'x-forwarded-proto': 'https' };

for (const sqliteNonceLog of [false, true]) {
  const db = join(dir, sqliteNonceLog ? 'log.db' : 'table.db');

  const start = async () => {
    const running = await startService({ db, sqliteNonceLog, port: 0, gatewayPort: 0, logLevel: 'silent', env: 'production', purgeDelayMs: 0, serverKey });
    return { running, base: `http://127.0.0.1:${running.address.port}` };
  };

  describe(`HMAC nonces in the service (SQLite, ${sqliteNonceLog ? 'nonce log' : 'default table'})`, () => {
    it('refuses a replay, after a restart too, and lets one of many concurrent copies through', async () => {
      let { running, base } = await start();
      await running.store.createUser({ name: 'hana', role: 'editor', passwordHash: await hashPassword('pw-pw-pw-pw'), hmacSecret: sealHmacSecret(new SecretBox(serverKey), 'hana', secret) });
      try {
        const headers: Record<string, string> = { ...signRequest({ method: 'GET', target: '/articles', user: 'hana', secret }), ...VIA_TLS };
        assert.equal((await send(base, 'GET', '/articles', { headers })).status, 200);
        assert.equal((await send(base, 'GET', '/articles', { headers })).status, 401);

        const copies: Record<string, string> = { ...signRequest({ method: 'GET', target: '/articles', user: 'hana', secret }), ...VIA_TLS };
        const statuses = await Promise.all(Array.from({ length: 12 }, () => send(base, 'GET', '/articles', { headers: copies }).then((r) => r.status)));
        assert.deepEqual(statuses.filter((s) => s === 200).length, 1, String(statuses));
        assert.ok(statuses.every((s) => s === 200 || s === 401), String(statuses));

        await running.close();
        ({ running, base } = await start());
        assert.equal((await send(base, 'GET', '/articles', { headers })).status, 401, 'a nonce seen before the restart stays spent');
        const fresh: Record<string, string> = { ...signRequest({ method: 'GET', target: '/articles', user: 'hana', secret }), ...VIA_TLS };
        assert.equal((await send(base, 'GET', '/articles', { headers: fresh })).status, 200);
      } finally {
        await running.close();
      }
    });
  });
}
