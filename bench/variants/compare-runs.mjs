#!/usr/bin/env node
/**
 * @module Two servers of saved run.mjs runs compared round by round, pooled over the runs:
 *   node bench/variants/compare-runs.mjs A B bench/results/articles-….json [more.json …]
 * For each round holding both, A's req/s ÷ B's and A's CPU µs/req ÷ B's (the first run of each in the
 * round); then the median and its distribution-free 95% interval per file and over all rounds together.
 * Made for an A/B of two --variant builds of one commit, both peers of the bracketing server: they are
 * built and loaded the same way, and each round runs them seconds apart, so they are compared with
 * each other directly rather than each with the bracket.
 */
import { readFileSync } from 'node:fs';
import { median, medianInterval } from '../lib/stats.mjs';

const [a, b, ...files] = process.argv.slice(2);
if (!a || !b || files.length === 0) {
  console.error('usage: node bench/variants/compare-runs.mjs A B RUN.json [RUN.json …]');
  process.exit(2);
}

const range = (xs) => {
  const [lo, hi] = medianInterval(xs);
  return Number.isFinite(lo) ? ` [${lo.toFixed(3)}–${hi.toFixed(3)}]` : '';
};
const line = (label, rps, cpu) =>
  console.log(`${label}: ${rps.length} rounds; req/s ${a}/${b} paired median ${median(rps).toFixed(3)}${range(rps)}; CPU/req ${median(cpu).toFixed(3)}${range(cpu)}`);

const allRps = [];
const allCpu = [];
for (const file of files) {
  const { runs } = JSON.parse(readFileSync(file, 'utf8'));
  const byRound = new Map();
  for (const run of runs) {
    const key = `${run.request}\u0000${run.round}`;
    if (!byRound.has(key)) byRound.set(key, {});
    const round = byRound.get(key);
    round[run.server] ??= run;
  }
  const rps = [];
  const cpu = [];
  for (const round of byRound.values()) {
    const x = round[a];
    const y = round[b];
    if (x === undefined || y === undefined) continue;
    rps.push(x.rps / y.rps);
    cpu.push(x.cpuUsPerReq / y.cpuUsPerReq);
  }
  line(file, rps, cpu);
  allRps.push(...rps);
  allCpu.push(...cpu);
}
if (files.length > 1) line('pooled', allRps, allCpu);
