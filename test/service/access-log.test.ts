import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { send, startTestService } from '../helpers/service.js';
import { captureLogs } from '../helpers/log-capture.js';

describe('service access log', () => {
  it('logs method, path, status and duration — never credentials or the query string', async () => {
    const { logger, lines } = captureLogs();
    const svc = await startTestService({ logger });
    try {
      const auth = await svc.addUser('logan', 'editor', 'hunter2-is-secret');
      await send(svc.base, 'PUT', '/articles/logged?token=sekrit-query', {
        headers: { authorization: auth, 'content-type': 'application/xml' },
        body: '<article><title>L</title><price currency="eur">1.00</price></article>',
      });
      await new Promise((r) => setTimeout(r, 50));
      const entry = lines().find((l) => l.msg === 'request' && l.path === '/articles/logged');
      assert.ok(entry, 'an access log entry for the PUT');
      assert.equal(entry.method, 'PUT');
      assert.equal(entry.status, 201);
      assert.equal(typeof entry.ms, 'number');
      const all = JSON.stringify(lines());
      assert.doesNotMatch(all, /hunter2|sekrit|Basic /);
    } finally {
      await svc.close();
    }
  });

  it('leaves the probes and /metrics out of the access log and the request metrics', async () => {
    const { logger, lines } = captureLogs();
    const svc = await startTestService({ logger });
    try {
      for (const path of ['/healthz', '/readyz', '/healthz?x=1', '/metrics']) assert.equal((await send(svc.base, 'GET', path)).status, 200, path);
      assert.equal((await send(svc.base, 'GET', '/articles/none-logged')).status, 404);
      const scrape = await send(svc.base, 'GET', '/metrics');
      await new Promise((r) => setTimeout(r, 50));
      const paths = lines().filter((l) => l.msg === 'request').map((l) => l.path);
      assert.deepEqual(paths, ['/articles/none-logged']);
      assert.doesNotMatch(scrape.text, /healthz|readyz|route="\/metrics"/);
    } finally {
      await svc.close();
    }
  });

  it('sends no X-Roa-Trace in production', async () => {
    const svc = await startTestService({ env: 'production' });
    try {
      const res = await send(svc.base, 'GET', '/articles/none-here');
      assert.equal(res.status, 404);
      assert.equal(res.headers['x-roa-trace'], undefined);
      assert.doesNotMatch(res.text, /at \w+ \(/);
    } finally {
      await svc.close();
    }
  });
});
