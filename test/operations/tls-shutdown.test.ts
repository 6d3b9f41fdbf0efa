import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe } from '../helpers/node-test.js';
import { h2Request, h2Session } from '../helpers/secure-clients.js';
import { startTestService } from '../helpers/service.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { makeTestCertificates, opensslAvailable } from '../helpers/tls.js';

const tlsSkip = skipReason(opensslAvailable(), 'openssl not available');

describe('RunningService.shutdown over TLS and HTTP/2', () => {
  const { it } = suiteNeeding(tlsSkip);
  for (const gateway of ['embedded gateway', 'service port'] as const) {
    it(`lets an HTTP/2 write in flight finish and sends GOAWAY (${gateway})`, async () => {
      const certs = makeTestCertificates();
      // A purge node answering after a second: the write's response waits for it (read-your-writes).
      const purgeNode = createServer((req, res) => setTimeout(() => res.end(), 1000));
      await new Promise<void>((r) => purgeNode.listen(0, '127.0.0.1', r));
      const svc = await startTestService({
        tls: { cert: certs.cert, key: certs.key },
        gatewayPort: gateway === 'embedded gateway' ? 'ephemeral' : 0,
        purge: [`http://127.0.0.1:${(purgeNode.address() as AddressInfo).port}`],
        purgeTimeoutMs: 5000,
      });
      try {
        const auth = await svc.addUser('ed', 'editor');
        const port = (svc.running.gatewayAddress ?? svc.running.address).port;
        const session = await h2Session(port, certs.ca);
        let goaway = false;
        session.on('goaway', () => (goaway = true));
        session.on('error', () => {});
        const write = h2Request(session, { method: 'PUT', path: '/articles/tls-drain', headers: { authorization: auth, accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Drained', price: { amount: '1.00', currency: 'eur' } }) });
        await new Promise((r) => setTimeout(r, 300));
        const report = await svc.running.shutdown({ timeoutMs: 10_000 });
        const reply = await write;
        assert.equal(reply.status, 201, reply.body);
        assert.equal((JSON.parse(reply.body) as { title: string }).title, 'Drained');
        assert.equal(goaway, true);
        assert.deepEqual(report.cut, { gateway: 0, service: 0 });
        session.destroy();
      } finally {
        await svc.running.close().catch(() => {});
        purgeNode.close();
        certs.remove();
      }
    });
  }
});
