import assert from 'node:assert/strict';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, parseShutdownTimeout } from '../../src/operations/shutdown-timeout.js';
import { describe, it } from '../helpers/node-test.js';

describe('parseShutdownTimeout', () => {
  it('reads seconds, and the 500ms and 10s forms, into milliseconds', () => {
    assert.equal(parseShutdownTimeout(undefined, 'x'), DEFAULT_SHUTDOWN_TIMEOUT_MS);
    assert.equal(parseShutdownTimeout('10', 'x'), 10_000);
    assert.equal(parseShutdownTimeout('2.5', 'x'), 2500);
    assert.equal(parseShutdownTimeout('10s', 'x'), 10_000);
    assert.equal(parseShutdownTimeout('500ms', 'x'), 500);
    assert.equal(parseShutdownTimeout('0', 'x'), 0);
    assert.equal(parseShutdownTimeout('3600', 'x'), 3_600_000);
  });

  it('refuses anything else, and more than an hour, naming the option', () => {
    for (const bad of ['', 'soon', '-1', '10m', '1e3', '3601', '3600001ms', ' s', 'Infinity']) {
      assert.throws(() => parseShutdownTimeout(bad, '--shutdown-timeout'), /--shutdown-timeout must be seconds/, bad);
    }
  });
});
