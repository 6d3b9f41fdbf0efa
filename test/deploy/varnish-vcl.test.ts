/** @module test/deploy/varnish-vcl — the shipped VCL compiles with the installed varnishd and vmod_xkey. */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { SHIPPED_VCL, compileVcl, renderVcl, varnishAvailable } from '../helpers/varnish.js';

const skip = skipReason(varnishAvailable(), 'varnishd with vmod_xkey not installed (run .ci/install-varnish.sh)');

describe('deploy/varnish/roa.vcl', () => {
  const { it } = suiteNeeding(skip);
  it('compiles as shipped (varnishd -C)', async () => {
    assert.equal(await compileVcl(SHIPPED_VCL), '');
  });

  it('compiles after the test helper rewrites backend and ACL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-vcl-'));
    chmodSync(dir, 0o755);
    try {
      const file = join(dir, 'rendered.vcl');
      const src = renderVcl(readFileSync(SHIPPED_VCL, 'utf8'), { backendPort: 41234, purgers: ['192.0.2.0/24', '::1'] });
      assert.match(src, /\.port = "41234";/);
      assert.match(src, /"192\.0\.2\.0\/24";/);
      assert.doesNotMatch(src, /"127\.0\.0\.1";\s*\n\s*"::1";/);
      writeFileSync(file, src, { mode: 0o644 });
      assert.equal(await compileVcl(file), '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a broken VCL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-vcl-'));
    chmodSync(dir, 0o755);
    try {
      const file = join(dir, 'broken.vcl');
      writeFileSync(file, readFileSync(SHIPPED_VCL, 'utf8').replace('return (hash);', 'return (nonsense);'), { mode: 0o644 });
      assert.notEqual(await compileVcl(file), '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
