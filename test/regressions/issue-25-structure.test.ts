/**
 * @module test/regressions/issue-25-structure
 * Issue 25 §7–8: comments in src/ say why, not when (no dated benchmark diaries), every
 * `eslint-disable` names its rule and says why, and the compiler checks indexed access.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from '../helpers/node-test.js';

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full, ext) : ext.test(full) ? [full] : [];
  });
}

function lines(paths: string[], pattern: RegExp): string[] {
  return paths.flatMap((file) =>
    readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('source hygiene (issue 25 §7–8)', () => {
  it('no dates or benchmark-guest diaries in src/ comments', () => {
    const src = files('src', /\.ts$/);
    assert.ok(src.length > 50, 'src/ was read');
    assert.deepEqual(lines(src, /\b20\d\d-\d\d-\d\d\b|\bguest\b/i), []);
  });

  it('every eslint-disable names a rule and gives a reason after `--`', () => {
    const all = [...files('src', /\.ts$/), ...files('test', /\.ts$/), ...files('scripts', /\.m?js$/), ...files('bench', /\.m?js$/)];
    const bare = lines(all, /\/[/*]\s*eslint-disable/).filter((l) => !/eslint-disable(?:-next-line|-line)?\s+[@\w/-]+(?:\s*,\s*[@\w/-]+)*\s+--\s+\S/.test(l));
    assert.deepEqual(bare, []);
  });

  it('tsconfig checks indexed access and is strict', () => {
    const config = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as { compilerOptions: Record<string, unknown> };
    assert.equal(config.compilerOptions.strict, true);
    assert.equal(config.compilerOptions.noUncheckedIndexedAccess, true);
  });

  it('npm test runs the linter', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    assert.match(pkg.scripts.lint ?? '', /\beslint\b/);
    assert.match(pkg.scripts.test ?? '', /npm run lint/);
  });
});
