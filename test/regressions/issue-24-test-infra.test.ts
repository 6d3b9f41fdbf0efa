/**
 * @module test/regressions/issue-24-test-infra
 * Issue 24 §7: every test file runs with a per-test timeout, and no suite hides its tests behind a
 * describe-level skip (node 20 counts such a suite as no tests at all; use suiteNeeding instead).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from '../helpers/node-test.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('test infrastructure (issue 24 §7)', () => {
  it('declares every test through test/helpers/node-test, which gives each a time-out', () => {
    const direct = files('test').filter((file) => file !== join('test', 'helpers', 'node-test.ts') && /^import[^\n]*from 'node:test'/m.test(readFileSync(file, 'utf8')));
    assert.deepEqual(direct, []);
  });

  it('node-test fails a test without options, a test with options, and a hook that outlive the time-out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-node-test-'));
    try {
      const helper = pathToFileURL(resolve('test/helpers/node-test.ts')).href;
      const file = join(dir, 'probe.test.ts');
      // Each sleeps 8 s against a 1 s time-out (timers fire in deadline order, however busy the machine):
      // they can only fail by timing out; a hook without a time-out would finish and let its test pass.
      writeFileSync(file, [
        `import { before, describe, it } from '${helper}';`,
        `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));`,
        `it('plain', () => sleep(8_000));`,
        `it('options', { skip: false }, () => sleep(8_000));`,
        `describe('hooked', () => { before(() => sleep(8_000)); it('after the hook', () => {}); });`,
      ].join('\n'));
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', file], {
        // Without NODE_TEST_CONTEXT, which would make the probe report to this runner, not to stdout.
        env: { ...process.env, NODE_TEST_CONTEXT: undefined, ROA_TEST_TIMEOUT_MS: '1000' },
        encoding: 'utf8',
        timeout: 110_000,
      });
      const timedOut = run.stdout.match(/test timed out after 1000ms/g) ?? [];
      assert.equal(timedOut.length, 2, run.stdout);
      assert.match(run.stdout, /failed running before hook/);
      assert.notEqual(run.status, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('declares no describe-level skip (a skipped suite must still count its tests as skipped)', () => {
    // Code, not comments: a line that calls describe with a skip option.
    const offenders = files('test').filter((file) => /^(?!\s*(?:\*|\/\/)).*\bdescribe\([^\n]*\{\s*skip\b/m.test(readFileSync(file, 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
