/** @module test/bench/paired-ratio — how the harness pairs runs into ratios, per round or bracketed. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from '../helpers/node-test.js';
// @ts-expect-error: a plain .mjs module of the bench harness, no types
import { pairedRatio } from '../../bench/lib/report.mjs';

const R = 'GET article';
let seq = 0;
const run = (server: string, round: number, rps: number, extra: Record<string, unknown> = {}) => ({ request: R, server, round, rps, seq: seq++, ...extra });

describe('pairedRatio', () => {
  beforeEach(() => {
    seq = 0;
  });

  it('pairs by round without a bracket', () => {
    const runs = [run('base', 1, 100), run('x', 1, 80), run('base', 2, 200), run('x', 2, 170)];
    // Rounds: 0.80 and 0.85; the median of two is their mean.
    assert.equal(pairedRatio(runs, R, 'x', 'base'), '0.82×');
  });

  it('pairs each run with the mean of the bracket runs just before and after it', () => {
    // The machine's speed halves between the two x runs; the bracket runs around each follow it.
    const runs = [run('base', 1, 100), run('x', 1, 80), run('base', 1, 100), run('y', 1, 10), run('base', 1, 60), run('x', 1, 40), run('base', 1, 40)];
    // x: 80 / mean(100, 100) = 0.8 and 40 / mean(60, 40) = 0.8.
    assert.equal(pairedRatio(runs, R, 'x', 'base', 'base'), '0.80×');
    // y sits between 100 and 60: 10 / 80.
    assert.equal(pairedRatio(runs, R, 'y', 'base', 'base'), '0.13×');
    // The inverse orientation (subject ÷ peer, the bracket being the subject).
    assert.equal(pairedRatio(runs, R, 'base', 'x', 'base'), '1.25×');
  });

  it('skips discarded and failed runs, and uses one side when the other is missing', () => {
    const runs = [run('x', 1, 50), run('base', 1, 100), run('base', 1, 1, { discarded: true }), run('x', 1, 90), run('base', 1, 0, { error: 'boom' }), run('base', 1, 80)];
    // x#1 has only a base after it (100): 0.5. x#2: bases around it are 100 and 80 (the discarded and failed runs skipped): 1.0.
    assert.equal(pairedRatio(runs, R, 'x', 'base', 'base'), '0.75×');
  });

  it('gives a 95% interval from six paired runs on', () => {
    const runs = [run('base', 1, 100)];
    for (const rps of [70, 75, 80, 85, 90, 95]) runs.push(run('x', 1, rps), run('base', 1, 100));
    assert.equal(pairedRatio(runs, R, 'x', 'base', 'base'), '0.82× [0.70–0.95]');
  });
});
