#!/usr/bin/env node
// Runs every test file with node's built-in runner. Node 20 runs nothing when given no file
// arguments, so the file list is expanded here rather than left to a shell glob.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = collect('test');
if (filter.length > 0) files = files.filter((f) => filter.some((p) => f.includes(p)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
// Each test and hook has its own time-out (test/helpers/node-test, which every test file imports
// instead of node:test): node 20's --test-timeout would bound each whole file and suite as one test.
// The run as a whole is bounded too, so a hang outside any test cannot stall CI for ever.
const RUN_TIMEOUT_MS = 45 * 60_000;
// .ci/run runs everything twice: as is, and with ROA_FAST_PATHS=0 (children inherit the environment).
console.log(`run-tests: ${files.length} files, ROA_FAST_PATHS=${process.env.ROA_FAST_PATHS ?? '(unset: all on)'}`);
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...files],
  { stdio: 'inherit', timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' },
);
if (result.error) console.error(`run-tests: ${result.error.message}`);
process.exit(result.status ?? 1);
