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
// Every test (each `it`, and each suite's hooks) gets a per-test timeout, so one that hangs fails
// with its name instead of stalling the run; the project's rule is that every `it` ends well inside it.
const TEST_TIMEOUT_MS = 120_000;
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${TEST_TIMEOUT_MS}`, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
