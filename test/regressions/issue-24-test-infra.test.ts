/**
 * @module test/regressions/issue-24-test-infra
 * Issue 24 §7: every test file runs with a per-test timeout, and no suite hides its tests behind a
 * describe-level skip (node 20 counts such a suite as no tests at all; use suiteNeeding instead).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('test infrastructure (issue 24 §7)', () => {
  it('runs every test file with --test-timeout', () => {
    assert.match(readFileSync('scripts/run-tests.mjs', 'utf8'), /--test-timeout=\$\{TEST_TIMEOUT_MS\}/);
    assert.match(readFileSync('scripts/run-tests.mjs', 'utf8'), /TEST_TIMEOUT_MS = 120_000/);
  });

  it('declares no describe-level skip (a skipped suite must still count its tests as skipped)', () => {
    // Code, not comments: a line that calls describe with a skip option.
    const offenders = files('test').filter((file) => /^(?!\s*(?:\*|\/\/)).*\bdescribe\([^\n]*\{\s*skip\b/m.test(readFileSync(file, 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
