/** @module test/bench/stats — the harness's confidence interval for a median. */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
// @ts-expect-error: a plain .mjs module of the bench harness, no types
import { medianInterval } from '../../bench/lib/stats.mjs';

describe('medianInterval', () => {
  it('uses the order statistics whose binomial coverage reaches 95%', () => {
    // n = 6: only the extremes cover 95% (1 - 2/64 = 96.9%).
    assert.deepEqual(medianInterval([0.7, 0.8, 0.75, 0.9, 0.6, 0.85]), [0.6, 0.9]);
    // n = 10: x(2) and x(9) (coverage 97.9%; x(3)..x(8) would be 89.1%).
    assert.deepEqual(medianInterval([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]), [2, 9]);
    // n = 20: x(6) and x(15) (95.9%).
    assert.deepEqual(medianInterval(Array.from({ length: 20 }, (_, i) => i + 1)), [6, 15]);
  });

  it('gives no interval below six values, and ignores values that are not finite', () => {
    assert.deepEqual(medianInterval([1, 2, 3, 4, 5]), [NaN, NaN]);
    assert.deepEqual(medianInterval([1, 2, 3, 4, 5, NaN, Infinity]), [NaN, NaN]);
  });

  it('covers the true median about as often as it claims', () => {
    // Rounds of noisy ratios around 0.8: the interval holds 0.8 in at least ~95% of 2,000 trials.
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let covered = 0;
    for (let trial = 0; trial < 2000; trial++) {
      const rounds = Array.from({ length: 10 }, () => 0.8 + (random() - 0.5) * 0.4);
      const [low, high] = medianInterval(rounds) as [number, number];
      if (low <= 0.8 && 0.8 <= high) covered++;
    }
    assert.ok(covered / 2000 >= 0.95, `covered ${covered} of 2000`);
  });
});
