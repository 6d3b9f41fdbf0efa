/**
 * @module test/bench/run-variant
 * `bench/run.mjs --variant NAME=SERVER:DIR` (an interleaved A/B of two builds) refuses what it cannot run
 * before starting anything: an unknown server, a directory without a build, a name taken, and --write.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUN = fileURLToPath(new URL('../../bench/run.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist', import.meta.url));

/** Runs the harness on the routing scenario (no Redis, no servers started before the check). */
function run(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [RUN, '--scenario', 'routing', '--rounds', '1', '--duration', '1', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
}

describe('bench run.mjs --variant', () => {
  it('names the server it cannot find', () => {
    const r = run('--variant', `old=nope:${DIST}`);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no server "nope" in scenario routing/);
  });

  it('refuses a directory that holds no build', () => {
    const r = run('--variant', 'old=roa:/nonexistent/roa/dist');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /\/nonexistent\/roa\/dist\/index\.js not found/);
  });

  it('refuses a malformed spec and a name already taken', () => {
    assert.match(run('--variant', 'old').stderr, /expected NAME=SERVER:DIST_DIR/);
    assert.match(run('--variant', `roa=roa:${DIST}`).stderr, /a server is already named "roa"/);
  });

  it('is never written to RESULTS.md', () => {
    const r = run('--variant', `old=roa:${DIST}`, '--write');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /not written to bench\/RESULTS\.md/);
  });
});
