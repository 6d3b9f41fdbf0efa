/** @module test/storage/open-store URL dispatch of openStore and its fail-fast errors. */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpError } from '../../src/errors/http-error.js';
import { openStore } from '../../src/storage/open-store.js';
import { freePort } from '../helpers/ports.js';

function unavailable(fragment: string) {
  return (err: unknown) => {
    assert.ok(err instanceof HttpError, `expected HttpError, got ${String(err)}`);
    assert.equal(err.status, 503);
    assert.equal(err.code, 'ROA_ERR_STORE_UNAVAILABLE');
    assert.ok(err.message.includes(fragment), err.message);
    assert.ok(!err.message.includes('\n'), 'one line');
    return true;
  };
}

describe('openStore', () => {
  it('opens SQLite in memory for :memory:', async () => {
    const store = await openStore(':memory:');
    assert.equal(store.kind, 'sqlite');
    const a = await store.createArticle({ title: 'Tea', price: { amount: '1', currency: 'EUR' } }, 'ann');
    assert.deepEqual(await store.getArticleById(a.id), a);
    await store.close();
  });

  it('opens SQLite for a plain path and a sqlite: URL, creating the directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-open-'));
    try {
      const plain = await openStore(join(dir, 'x', 'one.db'));
      assert.equal(plain.kind, 'sqlite');
      await plain.close();
      const prefixed = await openStore(`sqlite:${join(dir, 'two.db')}`);
      assert.equal(prefixed.kind, 'sqlite');
      await prefixed.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects an unknown scheme', async () => {
    await assert.rejects(openStore('redis://127.0.0.1/0'), /unsupported store URL scheme "redis:"/);
  });

  it('fails with a one-line 503 error for an unwritable path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-open-'));
    try {
      const file = join(dir, 'file');
      writeFileSync(file, 'x');
      await assert.rejects(openStore(join(file, 'roa.db')), unavailable(join(file, 'roa.db')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails instead of hanging for a directory it cannot create under /proc', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
    await assert.rejects(openStore('/proc/roa-does-not-exist/roa.db'), unavailable('/proc/roa-does-not-exist/roa.db'));
  });

  for (const scheme of ['postgres', 'postgresql']) {
    it(`fails fast with a 503 error for an unreachable ${scheme}:// URL, without leaking the password`, async () => {
      const port = await freePort();
      const started = Date.now();
      await assert.rejects(openStore(`${scheme}://roa:secret@127.0.0.1:${port}/roa`), (err: unknown) => {
        unavailable(`127.0.0.1:${port}`)(err);
        assert.ok(!(err as Error).message.includes('secret'), (err as Error).message);
        return true;
      });
      assert.ok(Date.now() - started < 30_000, 'fails within the connect timeout, not at the test timeout');
    });
  }
});
