import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { NOT_LOADED, RecordCache } from '../../src/auth/user-cache.js';
import type { User } from '../../src/storage/store.js';

function fakeStore() {
  const users = new Map<string, User>();
  let reads = 0;
  return {
    users,
    reads: () => reads,
    async getUser(name: string) {
      reads++;
      return users.get(name);
    },
  };
}

describe('RecordCache', () => {
  it('peeks a loaded, fresh record without a promise; NOT_LOADED before the load settles, after the TTL, or with TTL 0', async () => {
    let now = 0;
    const store = fakeStore();
    store.users.set('ann', { name: 'ann', role: 'editor', passwordHash: 'h1', hmacSecret: null, createdAt: new Date(0) });
    const cache = new RecordCache(store, 1000, () => now);
    assert.equal(cache.peekUser('ann'), NOT_LOADED);
    const loading = cache.getUser('ann');
    assert.equal(cache.peekUser('ann'), NOT_LOADED, 'still loading');
    await loading;
    assert.equal((cache.peekUser('ann') as User).role, 'editor');
    await cache.getUser('nobody');
    assert.equal(cache.peekUser('nobody'), undefined, 'known not to exist');
    now = 1000;
    assert.equal(cache.peekUser('ann'), NOT_LOADED, 'stale');
    assert.equal(new RecordCache(store, 0, () => now).peekUser('ann'), NOT_LOADED);
  });

  it('reuses a user record for a second, then reads the store again', async () => {
    let now = 0;
    const store = fakeStore();
    store.users.set('ann', { name: 'ann', role: 'editor', passwordHash: 'h1', hmacSecret: null, createdAt: new Date(0) });
    const cache = new RecordCache(store, 1000, () => now);
    assert.equal((await cache.getUser('ann'))?.role, 'editor');
    store.users.set('ann', { ...store.users.get('ann')!, role: 'reader' });
    now = 999;
    assert.equal((await cache.getUser('ann'))?.role, 'editor');
    assert.equal(store.reads(), 1);
    now = 1000;
    assert.equal((await cache.getUser('ann'))?.role, 'reader');
    assert.equal(store.reads(), 2);
  });

  it('sees a removed user after the window', async () => {
    let now = 0;
    const store = fakeStore();
    store.users.set('bo', { name: 'bo', role: 'admin', passwordHash: 'h', hmacSecret: null, createdAt: new Date(0) });
    const cache = new RecordCache(store, 1000, () => now);
    assert.ok(await cache.getUser('bo'));
    store.users.delete('bo');
    now = 1500;
    assert.equal(await cache.getUser('bo'), undefined);
  });

  it('does not remember a failed read', async () => {
    let fail = true;
    const cache = new RecordCache({ getUser: async () => { if (fail) throw new Error('down'); return undefined; } }, 1000, () => 0);
    await assert.rejects(cache.getUser('x'));
    await new Promise((r) => setImmediate(r));
    fail = false;
    assert.equal(await cache.getUser('x'), undefined);
  });

  it('reads every time with a TTL of 0', async () => {
    const store = fakeStore();
    const cache = new RecordCache(store, 0);
    await cache.getUser('a');
    await cache.getUser('a');
    assert.equal(store.reads(), 2);
  });
});
