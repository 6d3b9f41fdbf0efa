import assert from 'node:assert/strict';
import { Readiness } from '../../src/operations/readiness.js';
import { shutdownService } from '../../src/operations/service-shutdown.js';
import { describe, it } from '../helpers/node-test.js';

/** The parts of a running service, as fakes that record the order they were closed in. */
function parts(steps: string[]) {
  const readiness = new Readiness({});
  return {
    readiness,
    server: { drain: async (ms: number) => (steps.push(`service ${ms > 0 ? 'drain' : 'cut'} (ready: ${readiness.shuttingDown ? 'no' : 'yes'})`), { cut: 0 }), closeAll() {} },
    gateway: { shutdown: async () => (steps.push('gateway'), { cut: 2 }) },
    release: async () => void steps.push('release'),
  };
}

describe('shutdownService', () => {
  it('goes not ready, drains the gateway, then the service, then the purger (drain where it has one), then releases', async () => {
    const steps: string[] = [];
    const drained: number[] = [];
    const purger = { drain: async (ms: number) => void (drained.push(ms), steps.push('purger drain')), close: async () => void steps.push('purger close') };
    const report = await shutdownService({ ...parts(steps), purger }, 5000);
    assert.deepEqual(steps, ['gateway', 'service drain (ready: no)', 'purger drain', 'purger close', 'release']);
    assert.ok(drained[0]! > 0 && drained[0]! <= 5000);
    assert.deepEqual(report, { cut: { gateway: 2, service: 0 }, purges: 'drained' });
  });

  it('closes a purger without drain, reporting the retries it dropped', async () => {
    const steps: string[] = [];
    const purger = { close: async () => void steps.push('purger close'), stats: () => ({ pending: 3 }) };
    const report = await shutdownService({ ...parts(steps), purger }, 0);
    assert.deepEqual(steps, ['gateway', 'service cut (ready: no)', 'purger close', 'release']);
    assert.deepEqual(report, { cut: { gateway: 2, service: 0 }, purges: 'closed', purgesAbandoned: 3 });
  });
});
