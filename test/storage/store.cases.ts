/** @module test/storage/store.cases The contract every Store adapter must pass; each adapter's test file runs it. */
import { describe } from '../helpers/node-test.js';
import { suiteNeeding } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { HttpError } from '../../src/errors/http-error.js';
import { contentEtag } from '../../src/storage/etag.js';
import type { ArticleInput, IdempotencyClaim, IdempotentResponse, Store, WriteResult } from '../../src/storage/store.js';

export interface StoreFixture {
  store: Store;
  cleanup: () => Promise<void>;
}

const tea: ArticleInput = { title: 'Tea', price: { amount: '3.50', currency: 'EUR' } };
const coffee: ArticleInput = { title: 'Coffee', price: { amount: '4.10', currency: 'EUR' } };

/** A key no other test (or earlier run against the same database) uses. */
function uniq(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

function input(title: string, amount = '1.00'): ArticleInput {
  return { title, price: { amount, currency: 'USD' } };
}

function assertHttpError(status: number, code: string) {
  return (err: unknown) => {
    assert.ok(err instanceof HttpError, `expected HttpError, got ${String(err)}`);
    assert.equal(err.status, status);
    assert.equal(err.code, code);
    return true;
  };
}

/**
 * Runs the shared Store contract. `makeStore` is called once for the suite; tests use unique keys so they do
 * not depend on each other, and `cleanup` runs at the end.
 */
export function storeContract(
  name: string,
  makeStore: () => Promise<StoreFixture>,
  opts: { skip?: string | false } = {},
): void {
  describe(`${name}: Store contract`, () => {
    const { it, before, after } = suiteNeeding(opts.skip ?? false);
    let fx: StoreFixture;
    let store: Store;
    before(async () => {
      fx = await makeStore();
      store = fx.store;
    });
    after(async () => {
      await fx?.cleanup();
    });

    describe('articles', () => {
      it('creates an article with a numeric id, null slug, owner and content etag', async () => {
        const a = await store.createArticle(tea, 'ann');
        assert.equal(typeof a.id, 'number');
        assert.ok(Number.isInteger(a.id) && a.id > 0);
        assert.equal(a.slug, null);
        assert.equal(a.owner, 'ann');
        assert.deepEqual(a.price, tea.price);
        assert.match(a.etag, /^[A-Za-z0-9_-]{22}$/);
        assert.equal(a.etag, contentEtag(tea));
        assert.ok(a.createdAt instanceof Date);
        assert.equal(a.createdAt.getTime(), a.updatedAt.getTime());
        assert.deepEqual(await store.getArticleById(a.id), a);
      });

      it('keeps prices of 30 integer and 18 fraction digits exactly, through create, put and replace (issue 24)', async () => {
        for (const amount of ['12345678901234567890.99', '0.000001', '123456789012345678901234567890.123456789012345678', '9.90', '0']) {
          const created = await store.createArticle(input('Exact', amount), 'ann');
          assert.equal(created.price.amount, amount);
          assert.equal((await store.getArticleById(created.id))!.price.amount, amount);
          const slug = uniq('exact');
          const put = await store.putArticleBySlug(slug, input('Exact', amount), 'ann');
          assert.equal(put.status, 'created');
          assert.equal((await store.getArticleBySlug(slug))!.price.amount, amount);
          const replaced = await store.replaceArticle(created.id, input('Exact again', amount));
          assert.equal(replaced.status, 'replaced');
          assert.equal((await store.getArticleById(created.id))!.price.amount, amount);
        }
        // Text, not a number: trailing zeros are digits the client chose.
        const trailing = await store.createArticle(input('Zeros', '1.000000000000000000'), 'ann');
        assert.equal((await store.getArticleById(trailing.id))!.price.amount, '1.000000000000000000');
      });

      it('gives identical content the identical etag, and different content a different one', async () => {
        const a = await store.createArticle(tea, 'ann');
        const b = await store.createArticle(tea, 'bob');
        const c = await store.createArticle(coffee, 'ann');
        assert.notEqual(a.id, b.id);
        assert.equal(a.etag, b.etag);
        assert.notEqual(a.etag, c.etag);
        assert.notEqual(contentEtag(input('a', '1')), contentEtag(input('a', '1.0')));
      });

      it('keeps price digits exactly as text', async () => {
        for (const amount of ['0.10', '12345678901234567890.123456789', '100']) {
          const a = await store.createArticle(input(uniq('p'), amount), 'ann');
          assert.equal((await store.getArticleById(a.id))?.price.amount, amount);
        }
      });

      it('returns undefined for missing ids and slugs', async () => {
        assert.equal(await store.getArticleById(987654321), undefined);
        assert.equal(await store.getArticleById(-1), undefined);
        assert.equal(await store.getArticleById(1.5), undefined);
        assert.equal(await store.getArticleById(Number.NaN), undefined);
        assert.equal(await store.getArticleBySlug(uniq('nope')), undefined);
      });

      it('lists in ascending id order, paginated by afterId', async () => {
        const made = [];
        for (let i = 0; i < 5; i++) made.push(await store.createArticle(input(`list ${i}`), 'ann'));
        const start = made[0]!.id - 1;
        const page1 = await store.listArticles({ limit: 2, afterId: start });
        assert.deepEqual(page1.map((a) => a.id), [made[0]!.id, made[1]!.id]);
        const page2 = await store.listArticles({ limit: 2, afterId: page1[1]!.id });
        assert.deepEqual(page2.map((a) => a.id), [made[2]!.id, made[3]!.id]);
        const page3 = await store.listArticles({ limit: 2, afterId: page2[1]!.id });
        assert.deepEqual(page3, [made[4]]);
        assert.deepEqual(await store.listArticles({ limit: 2, afterId: made[4]!.id }), []);
        assert.deepEqual(await store.listArticles({ limit: 0, afterId: start }), []);
        const all = await store.listArticles({ limit: 1000 });
        assert.ok(all.length >= 5);
        for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.id < all[i]!.id);
      });

      it('never reuses the id of a deleted article', async () => {
        const a = await store.createArticle(tea, 'ann');
        assert.equal(await store.deleteArticle(a.id), 'deleted');
        const b = await store.createArticle(tea, 'ann');
        assert.ok(b.id > a.id);
      });
    });

    describe('putArticleBySlug', () => {
      it('creates at a new slug', async () => {
        const slug = uniq('put');
        const r = await store.putArticleBySlug(slug, tea, 'ann');
        assert.equal(r.status, 'created');
        assert.ok(r.status === 'created');
        assert.equal(r.article.slug, slug);
        assert.equal(r.article.owner, 'ann');
        assert.deepEqual(await store.getArticleBySlug(slug), r.article);
        assert.deepEqual(await store.getArticleById(r.article.id), r.article);
      });

      it('replaces changed content, keeping id, owner and createdAt', async () => {
        const slug = uniq('put');
        const c = await store.putArticleBySlug(slug, tea, 'ann');
        assert.ok(c.status === 'created');
        await new Promise((r) => setTimeout(r, 5));
        const r = await store.putArticleBySlug(slug, coffee, 'bob');
        assert.ok(r.status === 'replaced');
        assert.equal(r.changed, true);
        assert.equal(r.article.id, c.article.id);
        assert.equal(r.article.owner, 'ann');
        assert.equal(r.article.title, 'Coffee');
        assert.equal(r.article.etag, contentEtag(coffee));
        assert.equal(r.article.createdAt.getTime(), c.article.createdAt.getTime());
        assert.ok(r.article.updatedAt.getTime() > c.article.updatedAt.getTime());
        assert.deepEqual(await store.getArticleBySlug(slug), r.article);
      });

      it('leaves identical content untouched: same etag, same updatedAt, no new row', async () => {
        const slug = uniq('put');
        const c = await store.putArticleBySlug(slug, tea, 'ann');
        assert.ok(c.status === 'created');
        await new Promise((r) => setTimeout(r, 5));
        const r = await store.putArticleBySlug(slug, { title: 'Tea', price: { amount: '3.50', currency: 'EUR' } }, 'ann');
        assert.ok(r.status === 'replaced');
        assert.equal(r.changed, false);
        assert.deepEqual(r.article, c.article);
        assert.deepEqual(await store.getArticleBySlug(slug), c.article);
        const after = await store.listArticles({ limit: 10, afterId: c.article.id });
        assert.equal(after.length, 0);
      });

      it('fails If-Match on an absent slug and creates nothing (RFC 9110 §13.1.1)', async () => {
        const slug = uniq('put');
        assert.deepEqual(await store.putArticleBySlug(slug, tea, 'ann', { ifMatch: '*' }), { status: 'precondition-failed' });
        assert.deepEqual(await store.putArticleBySlug(slug, tea, 'ann', { ifMatch: [contentEtag(tea)] }), { status: 'precondition-failed' });
        assert.equal(await store.getArticleBySlug(slug), undefined);
      });

      it('honours If-None-Match: * as create-only', async () => {
        const slug = uniq('put');
        const c = await store.putArticleBySlug(slug, tea, 'ann', { ifNoneMatch: '*' });
        assert.equal(c.status, 'created');
        const r = await store.putArticleBySlug(slug, coffee, 'ann', { ifNoneMatch: '*' });
        assert.equal(r.status, 'precondition-failed');
        assert.ok(r.status === 'precondition-failed' && c.status === 'created');
        assert.deepEqual(r.current, c.article);
        assert.equal((await store.getArticleBySlug(slug))?.title, 'Tea');
      });

      it('compares If-Match etags against the stored one', async () => {
        const slug = uniq('put');
        const c = await store.putArticleBySlug(slug, tea, 'ann');
        assert.ok(c.status === 'created');
        const stale = await store.putArticleBySlug(slug, coffee, 'ann', { ifMatch: ['nope', contentEtag(coffee)] });
        assert.ok(stale.status === 'precondition-failed');
        assert.deepEqual(stale.current, c.article);
        assert.equal((await store.getArticleBySlug(slug))?.title, 'Tea');
        const ok = await store.putArticleBySlug(slug, coffee, 'ann', { ifMatch: ['nope', c.article.etag] });
        assert.ok(ok.status === 'replaced' && ok.changed);
        const star = await store.putArticleBySlug(slug, tea, 'ann', { ifMatch: '*' });
        assert.ok(star.status === 'replaced' && star.changed);
        const none = await store.putArticleBySlug(slug, tea, 'ann', { ifMatch: [] });
        assert.equal(none.status, 'precondition-failed');
      });

      it('yields exactly one created for 10 concurrent puts to a new slug', async () => {
        const slug = uniq('race');
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.putArticleBySlug(slug, input(`racer ${i}`), `user${i}`)),
        );
        assert.equal(results.filter((r) => r.status === 'created').length, 1);
        assert.equal(results.filter((r) => r.status === 'replaced').length, 9);
        const stored = await store.getArticleBySlug(slug);
        assert.ok(stored);
        const ids = new Set(results.map((r) => ('article' in r ? r.article.id : -1)));
        assert.deepEqual([...ids], [stored.id]);
      });

      it('lets exactly one of 10 concurrent If-Match writers win', async () => {
        const slug = uniq('cas');
        const c = await store.putArticleBySlug(slug, tea, 'ann');
        assert.ok(c.status === 'created');
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.putArticleBySlug(slug, input(`cas ${i}`), 'ann', { ifMatch: [c.article.etag] })),
        );
        assert.equal(results.filter((r) => r.status === 'replaced').length, 1);
        assert.equal(results.filter((r) => r.status === 'precondition-failed').length, 9);
      });
    });

    describe('replaceArticle', () => {
      it('reports missing, even with conditions, and never creates', async () => {
        assert.deepEqual(await store.replaceArticle(987654321, tea), { status: 'missing' });
        assert.deepEqual(await store.replaceArticle(987654321, tea, { ifMatch: '*' }), { status: 'missing' });
        assert.equal(await store.getArticleById(987654321), undefined);
      });

      it('replaces, skips unchanged content, and checks If-Match', async () => {
        const a = await store.createArticle(tea, 'ann');
        const same = await store.replaceArticle(a.id, tea);
        assert.deepEqual(same, { status: 'replaced', article: a, changed: false });
        const stale = await store.replaceArticle(a.id, coffee, { ifMatch: [contentEtag(coffee)] });
        assert.deepEqual(stale, { status: 'precondition-failed', current: a });
        const none = await store.replaceArticle(a.id, coffee, { ifNoneMatch: '*' });
        assert.equal(none.status, 'precondition-failed');
        const r = await store.replaceArticle(a.id, coffee, { ifMatch: [a.etag] });
        assert.ok(r.status === 'replaced' && r.changed);
        assert.equal(r.article.slug, null);
        assert.equal(r.article.etag, contentEtag(coffee));
        assert.deepEqual(await store.getArticleById(a.id), r.article);
      });

      it('lets exactly one of 10 concurrent If-Match replacements win', async () => {
        const a = await store.createArticle(tea, 'ann');
        const results: WriteResult[] = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.replaceArticle(a.id, input(`r ${i}`), { ifMatch: [a.etag] })),
        );
        assert.equal(results.filter((r) => r.status === 'replaced').length, 1);
        assert.equal(results.filter((r) => r.status === 'precondition-failed').length, 9);
      });
    });

    describe('deleteArticle', () => {
      it('deletes without a condition, then reports missing', async () => {
        const a = await store.createArticle(tea, 'ann');
        assert.equal(await store.deleteArticle(a.id), 'deleted');
        assert.equal(await store.getArticleById(a.id), undefined);
        assert.equal(await store.deleteArticle(a.id), 'missing');
        assert.equal(await store.deleteArticle(a.id, { ifMatch: '*' }), 'missing');
      });

      it('checks If-Match and If-None-Match', async () => {
        const a = await store.createArticle(tea, 'ann');
        assert.equal(await store.deleteArticle(a.id, { ifMatch: ['stale'] }), 'precondition-failed');
        assert.equal(await store.deleteArticle(a.id, { ifNoneMatch: '*' }), 'precondition-failed');
        assert.ok(await store.getArticleById(a.id));
        assert.equal(await store.deleteArticle(a.id, { ifMatch: [a.etag] }), 'deleted');
        const b = await store.createArticle(tea, 'ann');
        assert.equal(await store.deleteArticle(b.id, { ifMatch: '*' }), 'deleted');
      });

      it('frees the slug of a deleted article', async () => {
        const slug = uniq('del');
        const c = await store.putArticleBySlug(slug, tea, 'ann');
        assert.ok(c.status === 'created');
        assert.equal(await store.deleteArticle(c.article.id), 'deleted');
        assert.equal(await store.getArticleBySlug(slug), undefined);
        const again = await store.putArticleBySlug(slug, tea, 'ann');
        assert.equal(again.status, 'created');
      });
    });

    describe('users', () => {
      it('creates, reads, lists, updates and removes users', async () => {
        const name = uniq('user');
        const u = await store.createUser({ name, role: 'editor', passwordHash: 'ph' });
        assert.equal(u.name, name);
        assert.equal(u.role, 'editor');
        assert.equal(u.hmacSecret, null);
        assert.ok(u.createdAt instanceof Date);
        assert.deepEqual(await store.getUser(name), u);
        const list = await store.listUsers();
        assert.ok(list.some((x) => x.name === name));
        const names = list.map((x) => x.name);
        assert.deepEqual(names, [...names].sort());
        assert.equal(await store.setUserHmacSecret(name, 'blob'), true);
        assert.equal((await store.getUser(name))?.hmacSecret, 'blob');
        assert.equal(await store.setUserHmacSecret(name, null), true);
        assert.equal((await store.getUser(name))?.hmacSecret, null);
        assert.equal(await store.setUserHmacSecret(uniq('ghost'), 'x'), false);
        assert.equal(await store.removeUser(name), true);
        assert.equal(await store.getUser(name), undefined);
        assert.equal(await store.removeUser(name), false);
      });

      it('keeps a given hmac secret', async () => {
        const name = uniq('user');
        const u = await store.createUser({ name, role: 'admin', passwordHash: 'ph', hmacSecret: 'enc' });
        assert.equal((await store.getUser(name))?.hmacSecret, 'enc');
        assert.equal(u.role, 'admin');
      });

      it("changes a user's password hash and role, and answers false for an unknown user", async () => {
        const name = uniq('user');
        await store.createUser({ name, role: 'reader', passwordHash: 'old', hmacSecret: 'enc' });
        assert.equal(await store.setUserPassword(name, 'new'), true);
        assert.equal(await store.setUserRole(name, 'editor'), true);
        const u = await store.getUser(name);
        assert.equal(u?.passwordHash, 'new');
        assert.equal(u?.role, 'editor');
        assert.equal(u?.hmacSecret, 'enc', 'other fields stay');
        assert.equal(await store.setUserPassword(uniq('none'), 'x'), false);
        assert.equal(await store.setUserRole(uniq('none'), 'admin'), false);
      });

      it('rejects a duplicate name with 409 ROA_ERR_USER_EXISTS', async () => {
        const name = uniq('user');
        await store.createUser({ name, role: 'reader', passwordHash: 'a' });
        await assert.rejects(store.createUser({ name, role: 'admin', passwordHash: 'b' }), assertHttpError(409, 'ROA_ERR_USER_EXISTS'));
        assert.equal((await store.getUser(name))?.role, 'reader');
      });

      it('returns undefined for an unknown user', async () => {
        assert.equal(await store.getUser(uniq('ghost')), undefined);
      });
    });

    describe('oauth clients', () => {
      it('creates, reads, lists and removes clients', async () => {
        const user = uniq('owner');
        await store.createUser({ name: user, role: 'editor', passwordHash: 'ph' });
        const clientId = uniq('client');
        const c = await store.createClient({ clientId, secretHash: 'sh', userName: user, scopes: ['articles:read', 'articles:write'] });
        assert.deepEqual(c.scopes, ['articles:read', 'articles:write']);
        assert.deepEqual(await store.getClient(clientId), c);
        const list = await store.listClients();
        assert.ok(list.some((x) => x.clientId === clientId));
        const ids = list.map((x) => x.clientId);
        assert.deepEqual(ids, [...ids].sort());
        const empty = await store.createClient({ clientId: uniq('client'), secretHash: 'sh', userName: user, scopes: [] });
        assert.deepEqual((await store.getClient(empty.clientId))?.scopes, []);
        assert.equal(await store.removeClient(clientId), true);
        assert.equal(await store.getClient(clientId), undefined);
        assert.equal(await store.removeClient(clientId), false);
      });

      it('rejects duplicates with 409 and unknown users with 404', async () => {
        const user = uniq('owner');
        await store.createUser({ name: user, role: 'editor', passwordHash: 'ph' });
        const clientId = uniq('client');
        await store.createClient({ clientId, secretHash: 'sh', userName: user, scopes: [] });
        await assert.rejects(
          store.createClient({ clientId, secretHash: 'x', userName: user, scopes: [] }),
          assertHttpError(409, 'ROA_ERR_CLIENT_EXISTS'),
        );
        await assert.rejects(
          store.createClient({ clientId: uniq('client'), secretHash: 'x', userName: uniq('ghost'), scopes: [] }),
          assertHttpError(404, 'ROA_ERR_USER_NOT_FOUND'),
        );
      });

      it('removes a client\'s tokens with it, and a user\'s clients and tokens with the user', async () => {
        const user = uniq('owner');
        await store.createUser({ name: user, role: 'editor', passwordHash: 'ph' });
        const c1 = uniq('client');
        const c2 = uniq('client');
        await store.createClient({ clientId: c1, secretHash: 'sh', userName: user, scopes: [] });
        await store.createClient({ clientId: c2, secretHash: 'sh', userName: user, scopes: [] });
        const expiresAt = new Date(Date.now() + 60_000);
        const t1 = uniq('tok');
        const t2 = uniq('tok');
        await store.saveToken({ hash: t1, kind: 'access', clientId: c1, userName: user, scopes: [], familyId: uniq('f'), expiresAt });
        await store.saveToken({ hash: t2, kind: 'access', clientId: c2, userName: user, scopes: [], familyId: uniq('f'), expiresAt });
        await store.removeClient(c1);
        assert.equal(await store.getToken(t1), undefined);
        assert.ok(await store.getToken(t2));
        await store.removeUser(user);
        assert.equal(await store.getClient(c2), undefined);
        assert.equal(await store.getToken(t2), undefined);
      });
    });

    describe('tokens', () => {
      const expiresAt = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, 123));
      function token(kind: 'access' | 'refresh', familyId = uniq('fam')) {
        return { hash: uniq('tok'), kind, clientId: 'c', userName: 'u', scopes: ['a', 'b'], familyId, expiresAt };
      }

      it('saves and reads a token', async () => {
        const t = token('access');
        await store.saveToken(t);
        assert.deepEqual(await store.getToken(t.hash), { ...t, usedAt: null, revoked: false });
        assert.equal(await store.getToken(uniq('none')), undefined);
      });

      it('rotates a refresh token once: ok (successors saved), then reused (family revoked); missing for unknown or access tokens', async () => {
        const fam = uniq('fam');
        const t = token('refresh', fam);
        await store.saveToken(t);
        const next = [token('access', fam), token('refresh', fam)];
        assert.equal(await store.rotateRefreshToken(t.hash, next), 'ok');
        assert.ok((await store.getToken(t.hash))?.usedAt instanceof Date);
        for (const n of next) assert.deepEqual(await store.getToken(n.hash), { ...n, usedAt: null, revoked: false });
        const late = [token('access', fam)];
        assert.equal(await store.rotateRefreshToken(t.hash, late), 'reused');
        assert.equal(await store.getToken(late[0]!.hash), undefined, 'a reuse saves nothing');
        for (const n of [t, ...next]) assert.equal((await store.getToken(n.hash))?.revoked, true, 'a reuse revokes the family');
        assert.equal(await store.rotateRefreshToken(uniq('none'), []), 'missing');
        const a = token('access');
        await store.saveToken(a);
        assert.equal(await store.rotateRefreshToken(a.hash, []), 'missing');
        assert.equal((await store.getToken(a.hash))?.revoked, false);
      });

      it('treats a revoked refresh token as reused', async () => {
        const t = token('refresh');
        await store.saveToken(t);
        assert.equal(await store.revokeToken(t.hash), true);
        assert.equal((await store.getToken(t.hash))?.revoked, true);
        const next = [token('refresh', t.familyId)];
        assert.equal(await store.rotateRefreshToken(t.hash, next), 'reused');
        assert.equal(await store.getToken(next[0]!.hash), undefined);
        assert.equal(await store.revokeToken(uniq('none')), false);
      });

      it('lets exactly one of 10 concurrent rotations succeed, and the reuses revoke its successors', async () => {
        const fam = uniq('fam');
        const t = token('refresh', fam);
        await store.saveToken(t);
        const successors = Array.from({ length: 10 }, () => [token('access', fam), token('refresh', fam)]);
        const results = await Promise.all(successors.map((s) => store.rotateRefreshToken(t.hash, s)));
        assert.equal(results.filter((r) => r === 'ok').length, 1);
        assert.equal(results.filter((r) => r === 'reused').length, 9);
        const winner = successors[results.indexOf('ok')]!;
        for (const n of winner) assert.equal((await store.getToken(n.hash))?.revoked, true);
      });

      it('never leaves a live token when a rotation races a reuse of an older token of its family', async () => {
        for (let round = 0; round < 10; round++) {
          const fam = uniq('fam');
          const old = token('refresh', fam);
          const current = token('refresh', fam);
          await store.saveToken(old);
          assert.equal(await store.rotateRefreshToken(old.hash, [current]), 'ok');
          const next = [token('access', fam), token('refresh', fam)];
          // The client rotates `current` while a thief replays `old`: whichever runs first, the family ends revoked.
          const [rotated, replayed] = await Promise.all([store.rotateRefreshToken(current.hash, next), store.rotateRefreshToken(old.hash, [])]);
          assert.equal(replayed, 'reused');
          assert.ok(rotated === 'ok' || rotated === 'reused', rotated);
          for (const n of [old, current, ...next]) {
            const rec = await store.getToken(n.hash);
            assert.ok(rec === undefined || rec.revoked, `round ${round}: ${n.kind} token still live after a reuse`);
          }
        }
      });

      it('never leaves a live token when a rotation races the revocation of its user\'s tokens', async () => {
        for (let round = 0; round < 20; round++) {
          const userName = uniq('user');
          const fam = uniq('fam');
          const t = { ...token('refresh', fam), userName };
          await store.saveToken(t);
          const next = [{ ...token('access', fam), userName }, { ...token('refresh', fam), userName }];
          // A client rotates while the user's password changes: whichever runs first, nothing stays live.
          const [rotated] = await Promise.all([store.rotateRefreshToken(t.hash, next), store.revokeUserTokens(userName)]);
          assert.ok(rotated === 'ok' || rotated === 'reused', rotated);
          for (const n of [t, ...next]) {
            const rec = await store.getToken(n.hash);
            assert.ok(rec === undefined || rec.revoked, `round ${round}: ${n.kind} token still live after the user's tokens were revoked`);
          }
        }
      });

      it("revokes every token of a user, and no one else's", async () => {
        const mine = [{ ...token('access'), userName: 'revokee' }, { ...token('refresh'), userName: 'revokee' }];
        const other = token('access');
        for (const t of [...mine, other]) await store.saveToken(t);
        assert.equal(await store.revokeUserTokens('revokee'), 2);
        for (const t of mine) assert.equal((await store.getToken(t.hash))?.revoked, true);
        assert.equal((await store.getToken(other.hash))?.revoked, false);
        assert.equal(await store.revokeUserTokens('revokee'), 0);
      });

      it('revokes a whole family and nothing else', async () => {
        const fam = uniq('fam');
        const members = [token('access', fam), token('refresh', fam), token('refresh', fam)];
        const other = token('refresh');
        for (const t of [...members, other]) await store.saveToken(t);
        assert.equal(await store.revokeFamily(fam), 3);
        for (const t of members) assert.equal((await store.getToken(t.hash))?.revoked, true);
        assert.equal((await store.getToken(other.hash))?.revoked, false);
        assert.equal(await store.revokeFamily(fam), 0);
        assert.equal(await store.revokeFamily(uniq('none')), 0);
      });
    });

    describe('nonces', () => {
      it('accepts a fresh nonce once and refuses its replay', async () => {
        const key = uniq('nonce');
        const exp = Date.now() + 60_000;
        assert.equal(await store.consumeNonce(key, exp), true);
        assert.equal(await store.consumeNonce(key, exp), false);
        assert.equal(await store.consumeNonce(uniq('nonce'), exp), true);
      });

      it('accepts a nonce again once its record has expired', async () => {
        const key = uniq('nonce');
        assert.equal(await store.consumeNonce(key, Date.now() - 1000), true);
        assert.equal(await store.consumeNonce(key, Date.now() + 60_000), true);
        assert.equal(await store.consumeNonce(key, Date.now() + 60_000), false);
      });

      it('lets exactly one of 10 concurrent consumers win', async () => {
        const key = uniq('nonce');
        const results = await Promise.all(Array.from({ length: 10 }, () => store.consumeNonce(key, Date.now() + 60_000)));
        assert.equal(results.filter(Boolean).length, 1);
      });
    });

    describe('idempotency keys', () => {
      const T0 = 1_900_000_000_000;
      const claimOf = (key: string, over: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
        caller: 'ann', key, token: randomUUID(), fingerprint: 'fp-1', nowMs: T0, lockedUntilMs: T0 + 60_000, expiresAtMs: T0 + 86_400_000, ...over,
      });
      const answer: IdempotentResponse = { status: 201, headers: { Location: '/article/7', ETag: '"abc-j"' }, body: '{"title":"Tä"}' };

      it('claims a free key once; a second claim sees the running marker', async () => {
        const key = uniq('idem');
        assert.deepEqual(await store.claimIdempotencyKey(claimOf(key)), { state: 'claimed' });
        assert.deepEqual(await store.claimIdempotencyKey(claimOf(key, { fingerprint: 'fp-2' })), { state: 'running', fingerprint: 'fp-1' });
      });

      it('stores the answer under the claim and hands it to later claims', async () => {
        const key = uniq('idem');
        const first = claimOf(key);
        await store.claimIdempotencyKey(first);
        assert.equal(await store.completeIdempotencyKey(first, answer), true);
        assert.deepEqual(await store.claimIdempotencyKey(claimOf(key, { nowMs: T0 + 1000 })), { state: 'done', fingerprint: 'fp-1', response: answer });
      });

      it('keeps keys of different callers apart', async () => {
        const key = uniq('idem');
        assert.equal((await store.claimIdempotencyKey(claimOf(key))).state, 'claimed');
        assert.equal((await store.claimIdempotencyKey(claimOf(key, { caller: 'bob' }))).state, 'claimed');
      });

      it('frees a released key, and ignores a release or completion by a request that lost its claim', async () => {
        const key = uniq('idem');
        const first = claimOf(key);
        await store.claimIdempotencyKey(first);
        assert.equal(await store.releaseIdempotencyKey({ ...first, token: 'someone-else' }), false);
        assert.equal(await store.releaseIdempotencyKey(first), true);
        const second = claimOf(key);
        assert.equal((await store.claimIdempotencyKey(second)).state, 'claimed');
        assert.equal(await store.completeIdempotencyKey(first, answer), false);
        assert.equal((await store.claimIdempotencyKey(claimOf(key))).state, 'running');
      });

      it('lets a running marker past its lock be taken over (a crashed instance), but not before', async () => {
        const key = uniq('idem');
        const first = claimOf(key);
        await store.claimIdempotencyKey(first);
        assert.equal((await store.claimIdempotencyKey(claimOf(key, { nowMs: T0 + 59_999 }))).state, 'running');
        const late = claimOf(key, { nowMs: T0 + 60_000, fingerprint: 'fp-2' });
        assert.equal((await store.claimIdempotencyKey(late)).state, 'claimed');
        // The crashed request's claim is gone: its completion no longer lands.
        assert.equal(await store.completeIdempotencyKey(first, answer), false);
        assert.equal(await store.completeIdempotencyKey(late, answer), true);
        assert.equal((await store.claimIdempotencyKey(claimOf(key, { nowMs: T0 + 200_000 }))).state, 'done');
      });

      it('forgets a stored answer once the key expired', async () => {
        const key = uniq('idem');
        const first = claimOf(key);
        await store.claimIdempotencyKey(first);
        await store.completeIdempotencyKey(first, answer);
        assert.equal((await store.claimIdempotencyKey(claimOf(key, { nowMs: T0 + 86_399_999 }))).state, 'done');
        assert.equal((await store.claimIdempotencyKey(claimOf(key, { nowMs: T0 + 86_400_000 }))).state, 'claimed');
      });

      it('lets exactly one of 10 concurrent claims win', async () => {
        const key = uniq('idem');
        const results = await Promise.all(Array.from({ length: 10 }, () => store.claimIdempotencyKey(claimOf(key))));
        assert.equal(results.filter((r) => r.state === 'claimed').length, 1);
        assert.equal(results.filter((r) => r.state === 'running').length, 9);
      });

      it('sweeps expired keys, at most `limit` per call', async () => {
        const far = T0 + 10 * 86_400_000;
        // Keys of earlier tests expire too at `far`; sweep them first so the counts below are this test's.
        while ((await store.sweepIdempotencyKeys(far, 1000)) > 0) { /* drain */ }
        for (let i = 0; i < 5; i++) await store.claimIdempotencyKey(claimOf(uniq('idem'), { nowMs: far, lockedUntilMs: far + 60_000, expiresAtMs: far + 10 }));
        const live = uniq('idem');
        await store.claimIdempotencyKey(claimOf(live, { nowMs: far, lockedUntilMs: far + 60_000, expiresAtMs: far + 1000 }));
        assert.equal(await store.sweepIdempotencyKeys(far + 10, 3), 3);
        assert.equal(await store.sweepIdempotencyKeys(far + 10, 3), 2);
        assert.equal(await store.sweepIdempotencyKeys(far + 10, 3), 0);
        assert.equal((await store.claimIdempotencyKey(claimOf(live, { nowMs: far + 10 }))).state, 'running');
      });
    });
  });
}
