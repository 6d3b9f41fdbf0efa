import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { send, startTestService } from '../helpers/service.js';
import { openStore } from '../../src/storage/open-store.js';
import { storeUnavailable } from '../../src/storage/store-errors.js';
import type { Store } from '../../src/storage/store.js';
import { captureLogs } from '../helpers/log-capture.js';

/** A real store whose article reads fail as an unreachable PostgreSQL's would. */
async function failingStore(): Promise<Store> {
  const store = await openStore(':memory:');
  const down = (): Promise<never> => Promise.reject(storeUnavailable('cannot reach PostgreSQL at db.internal:5432: connect ECONNREFUSED'));
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'getArticleBySlug' || prop === 'getArticleById') return down;
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('a failing database', () => {
  it('is logged at warn with the reason when the 503 is produced; the access line carries code and reason; it is counted', async () => {
    const { logger, lines } = captureLogs();
    const svc = await startTestService({ logger, store: await failingStore() });
    try {
      const res = await send(svc.base, 'GET', '/article/some-slug?token=sekrit', { headers: { 'x-request-id': 'db-fail-1' } });
      assert.equal(res.status, 503);
      await new Promise((r) => setTimeout(r, 50));
      const warn = lines().find((l) => l.msg === 'request failed');
      assert.ok(warn, JSON.stringify(lines()));
      assert.equal(warn.level, 40);
      assert.equal(warn.reqId, 'db-fail-1');
      assert.equal(warn.code, 'ROA_ERR_STORE_UNAVAILABLE');
      assert.match(String(warn.reason), /cannot reach PostgreSQL at db\.internal:5432/);
      const access = lines().find((l) => l.msg === 'request' && l.reqId === 'db-fail-1');
      assert.ok(access);
      assert.equal(access.status, 503);
      assert.equal(access.code, 'ROA_ERR_STORE_UNAVAILABLE');
      assert.match(String(access.reason), /ECONNREFUSED/);
      assert.doesNotMatch(JSON.stringify(lines()), /sekrit/);
      const metrics = await send(svc.base, 'GET', '/metrics');
      assert.match(metrics.text, /^roa_database_errors_total\{code="ROA_ERR_STORE_UNAVAILABLE"\} 1$/m);
    } finally {
      await svc.close();
    }
  });
});
