/**
 * @module test/storage/optional-drivers
 * The database drivers are optional: importing roa loads neither, and a store whose driver is not
 * installed fails to open with a message naming the package (one line and exit code 1 from the CLI).
 * Each case runs in a child process whose loader hooks (fixtures/hide-drivers) hide the packages.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HIDE = fileURLToPath(new URL('./fixtures/hide-drivers.mjs', import.meta.url));
const DRIVERS = /[\\/]node_modules[\\/](better-sqlite3|pg)[\\/]/;

/** Runs `args` under node with tsx and the hooks hiding `hidden`, in the repository root. */
function node(args: string[], hidden: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--import', HIDE, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ROA_HIDE_PACKAGES: hidden.join(',') },
    timeout: 60_000,
  });
}

/** Module source that imports `specifier` and prints the driver files CommonJS loaded, as JSON. */
function loadedDriversAfter(specifier: string, then = ''): string {
  return `import { createRequire } from 'node:module';
    const roa = await import(${JSON.stringify(specifier)});
    ${then}
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => ${DRIVERS}.test(f));
    console.log(JSON.stringify(loaded));`;
}

function loadedDrivers(result: ReturnType<typeof node>): string[] {
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as string[];
}

describe('optional database drivers', () => {
  it('importing roa loads neither better-sqlite3 nor pg (both hidden: a static import would fail)', () => {
    const specifiers = ['./src/index.ts', ...(existsSync(join(ROOT, 'dist', 'index.js')) ? ['roa'] : [])];
    for (const specifier of specifiers) {
      const result = node(['--input-type=module', '-e', loadedDriversAfter(specifier)], ['better-sqlite3', 'pg']);
      assert.deepEqual(loadedDrivers(result), [], specifier);
    }
  });

  it('loads better-sqlite3 once a SQLite store is opened, and not pg', () => {
    const open = `const store = await roa.openStore(':memory:'); await store.close();`;
    const result = node(['--input-type=module', '-e', loadedDriversAfter('./src/index.ts', open)], ['pg']);
    const loaded = loadedDrivers(result);
    assert.ok(loaded.some((f) => f.includes('better-sqlite3')), JSON.stringify(loaded));
    assert.ok(!loaded.some((f) => /[\\/]pg[\\/]/.test(f)), JSON.stringify(loaded));
  });

  it('openStore rejects with ROA_ERR_STORE_DRIVER_MISSING naming the package when the driver is not installed', () => {
    const probe = (url: string) => `const { openStore } = await import('./src/storage/open-store.ts');
      try { await openStore(${JSON.stringify(url)}); console.log('opened'); }
      catch (err) { console.log(JSON.stringify({ code: err.code, status: err.status, message: err.message })); }`;
    const sqlite = node(['--input-type=module', '-e', probe(':memory:')], ['better-sqlite3']);
    assert.equal(sqlite.status, 0, sqlite.stderr);
    assert.deepEqual(JSON.parse(sqlite.stdout), {
      code: 'ROA_ERR_STORE_DRIVER_MISSING', status: 500, message: 'SQLite storage needs the better-sqlite3 package: npm install better-sqlite3',
    });
    const pg = node(['--input-type=module', '-e', probe('postgres://roa@127.0.0.1:1/roa')], ['pg']);
    assert.equal(pg.status, 0, pg.stderr);
    assert.deepEqual(JSON.parse(pg.stdout), {
      code: 'ROA_ERR_STORE_DRIVER_MISSING', status: 500, message: 'PostgreSQL storage needs the pg package: npm install pg',
    });
  });

  it('the CLI prints one line and exits 1, creating no database file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-no-driver-'));
    try {
      const sqlite = node(['src/cli.ts', 'user', 'list', '--db', join(dir, 'roa.db')], ['better-sqlite3']);
      assert.equal(sqlite.status, 1);
      assert.equal(sqlite.stderr, 'roa: SQLite storage needs the better-sqlite3 package: npm install better-sqlite3\n');
      assert.deepEqual(readdirSync(dir), []);
      const pg = node(['src/cli.ts', 'user', 'list', '--db', 'postgres://roa@127.0.0.1:1/roa'], ['pg']);
      assert.equal(pg.status, 1);
      assert.equal(pg.stderr, 'roa: PostgreSQL storage needs the pg package: npm install pg\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
