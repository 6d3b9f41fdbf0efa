/**
 * @module test/resources/idempotency
 * Idempotency-Key on POST /articles, end to end, on SQLite and on PostgreSQL (two instances sharing keys).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe } from '../helpers/node-test.js';
import { send, startTestService, type SimpleResponse, type TestService } from '../helpers/service.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL as PG_URL } from '../helpers/services.js';
import { IdempotencyKeys } from '../../src/resources/idempotency.js';
import { openStore } from '../../src/storage/open-store.js';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import type { Store } from '../../src/storage/store.js';

const RUN = `roa_test_idem_${randomBytes(4).toString('hex')}`;
const DAY = 24 * 3600_000;
const BODY = JSON.stringify({ title: 'Tea', price: { amount: '3.50', currency: 'eur' } });

async function dropSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)', [RUN]);
    for (const r of rows) await client.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A store whose createArticle waits for `open()` while held, or fails once when armed: a request kept in flight, or one that fails. */
function controlledStore(store: Store) {
  let gate: Promise<void> | undefined;
  let open = (): void => {};
  let entered = (): void => {};
  let failNext = false;
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'createArticle') {
        return async (...args: Parameters<Store['createArticle']>) => {
          if (failNext) {
            failNext = false;
            throw new Error('injected failure');
          }
          entered();
          if (gate !== undefined) await gate;
          return target.createArticle(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    store: wrapped,
    /** Holds every createArticle until the returned release; resolves `inside` once one is waiting. */
    hold(): { inside: Promise<void>; release: () => void } {
      const inside = new Promise<void>((r) => { entered = r; });
      gate = new Promise<void>((r) => { open = r; });
      return { inside, release: () => { gate = undefined; open(); } };
    },
    failOnce(): void {
      failNext = true;
    },
  };
}

type OpenStore = (name: string) => Promise<Store>;

function post(svc: TestService, auth: string, key: string | undefined, body = BODY, extra: Record<string, string> = {}): Promise<SimpleResponse> {
  return send(svc.base, 'POST', '/articles', {
    headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json', ...(key !== undefined ? { 'idempotency-key': key } : {}), ...extra },
    body,
  });
}

function idempotencySuite(name: string, open: OpenStore, skip: string | false): void {
  describe(`Idempotency-Key on POST /articles (${name})`, () => {
    const { it, before, after } = suiteNeeding(skip);
    let now = Date.UTC(2026, 0, 1);
    let svc: TestService;
    let ctl: ReturnType<typeof controlledStore>;
    let raw: Store;
    let ann: string;
    let bob: string;
    const count = async (): Promise<number> => (await raw.listArticles({ limit: 10_000 })).length;

    before(async () => {
      raw = await open('main');
      ctl = controlledStore(raw);
      svc = await startTestService({ store: ctl.store, idempotencyClock: () => now });
      ann = await svc.addUser('ann', 'editor');
      bob = await svc.addUser('bob', 'editor');
    });
    after(() => svc?.close());

    it('answers a retry with the first response, marked replayed, and creates nothing', async () => {
      const before = await count();
      const key = `"${randomUUID()}"`;
      const first = await post(svc, ann, key);
      assert.equal(first.status, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // Another Accept on the retry: the stored representation comes back as first sent.
      const again = await post(svc, ann, key, BODY, { accept: 'application/xml' });
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      for (const field of ['location', 'content-location', 'etag', 'content-type', 'last-modified']) {
        assert.equal(again.headers[field], first.headers[field], field);
      }
      assert.equal(again.text, first.text);
      assert.equal(await count(), before + 1);
    });

    it('takes the same key as a bare token and as a quoted string', async () => {
      const key = randomUUID();
      const first = await post(svc, ann, key);
      const again = await post(svc, ann, `"${key}"`);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
    });

    it('answers 422 to the same key with another body, and keeps the first answer', async () => {
      const key = randomUUID();
      const first = await post(svc, ann, key);
      const before = await count();
      const other = await post(svc, ann, key, JSON.stringify({ title: 'Coffee', price: { amount: '4.10', currency: 'eur' } }));
      assert.equal(other.status, 422);
      assert.match(other.headers['content-type'] ?? '', /application\/problem\+json/);
      assert.equal(JSON.parse(other.text).code, 'ROA_ERR_IDEMPOTENCY_KEY_REUSED');
      assert.equal(await count(), before);
      assert.equal((await post(svc, ann, key)).headers.location, first.headers.location);
    });

    it('answers 409 while the first request runs, then replays its answer', async () => {
      const key = randomUUID();
      const held = ctl.hold();
      const first = post(svc, ann, key);
      await held.inside;
      const during = await post(svc, ann, key);
      assert.equal(during.status, 409);
      assert.equal(during.headers['retry-after'], '1');
      assert.equal(JSON.parse(during.text).code, 'ROA_ERR_IDEMPOTENCY_KEY_IN_USE');
      held.release();
      const done = await first;
      assert.equal(done.status, 201);
      const after = await post(svc, ann, key);
      assert.equal(after.headers['idempotent-replayed'], 'true');
      assert.equal(after.headers.location, done.headers.location);
    });

    it('keeps keys per caller: the same key from two users is two keys', async () => {
      const key = randomUUID();
      const before = await count();
      const a = await post(svc, ann, key);
      const b = await post(svc, bob, key);
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.equal(b.headers['idempotent-replayed'], undefined);
      assert.notEqual(a.headers.location, b.headers.location);
      assert.equal(JSON.parse(b.text).owner ?? 'bob', 'bob');
      assert.equal(await count(), before + 2);
    });

    it('answers 400 to a malformed key, before anything is created', async () => {
      const before = await count();
      for (const bad of ['""', 'k'.repeat(256), '"a", "b"', ':aGk=:', '"a";p=1', '?1']) {
        const res = await post(svc, ann, bad);
        assert.equal(res.status, 400, bad);
        assert.equal(JSON.parse(res.text).code, 'ROA_ERR_BAD_IDEMPOTENCY_KEY');
      }
      assert.equal(await count(), before);
    });

    it('works as before without the header', async () => {
      const before = await count();
      const a = await post(svc, ann, undefined);
      const b = await post(svc, ann, undefined);
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.notEqual(a.headers.location, b.headers.location);
      assert.equal(b.headers['idempotent-replayed'], undefined);
      assert.equal(await count(), before + 2);
    });

    it('claims nothing for a request refused before the action (invalid body), and frees the key after a failure', async () => {
      const key = randomUUID();
      const invalid = await post(svc, ann, key, JSON.stringify({ title: '' }));
      assert.equal(invalid.status, 422);
      assert.notEqual(JSON.parse(invalid.text).code, 'ROA_ERR_IDEMPOTENCY_KEY_REUSED');
      ctl.failOnce();
      const failed = await post(svc, ann, key);
      assert.equal(failed.status, 500);
      const retried = await post(svc, ann, key);
      assert.equal(retried.status, 201);
      assert.equal(retried.headers['idempotent-replayed'], undefined);
    });

    it('forgets a key after 24 hours', async () => {
      const key = randomUUID();
      const first = await post(svc, ann, key);
      now += DAY - 1;
      assert.equal((await post(svc, ann, key)).headers['idempotent-replayed'], 'true');
      now += 1;
      const later = await post(svc, ann, key);
      assert.equal(later.status, 201);
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.notEqual(later.headers.location, first.headers.location);
    });

    it("takes over a running marker left by a crashed instance once its 60 s lock lapsed", async () => {
      const key = randomUUID();
      // What an instance killed in the middle of the request leaves behind.
      await raw.claimIdempotencyKey({ caller: 'ann', key, token: 'crashed', fingerprint: 'whatever', nowMs: now, lockedUntilMs: now + 60_000, expiresAtMs: now + DAY });
      now += 59_000;
      assert.equal((await post(svc, ann, key)).status, 422);
      now += 1_000;
      const taken = await post(svc, ann, key);
      assert.equal(taken.status, 201);
      assert.equal((await post(svc, ann, key)).headers['idempotent-replayed'], 'true');
    });
  });
}

idempotencySuite('SQLite', () => openStore(':memory:'), false);

const pgSkip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(PG_URL)} (set ROA_TEST_PG_URL)`);
idempotencySuite('PostgreSQL', (name) => openStore(PG_URL, { schema: `${RUN}_${name}` }), pgSkip);

describe('Idempotency-Key across two instances on one PostgreSQL', () => {
  const { it, before, after } = suiteNeeding(pgSkip);
  const schema = `${RUN}_shared`;
  let a: TestService;
  let b: TestService;
  let ctlA: ReturnType<typeof controlledStore>;
  let rawA: Store;
  let auth: string;
  before(async () => {
    rawA = await openStore(PG_URL, { schema });
    ctlA = controlledStore(rawA);
    a = await startTestService({ store: ctlA.store });
    b = await startTestService({ store: await openStore(PG_URL, { schema }) });
    auth = await a.addUser('ann', 'editor');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    if (pgSkip === false) await dropSchemas();
  });

  it('replays on one instance what the other created, and answers 409 there while it runs', async () => {
    const before = (await rawA.listArticles({ limit: 10_000 })).length;
    const key = randomUUID();
    const held = ctlA.hold();
    const first = post(a, auth, key);
    await held.inside;
    assert.equal((await post(b, auth, key)).status, 409);
    held.release();
    const created = await first;
    assert.equal(created.status, 201);
    const replayed = await post(b, auth, key);
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.headers.location, created.headers.location);
    assert.equal(replayed.text, created.text);
    assert.equal((await rawA.listArticles({ limit: 10_000 })).length, before + 1);
  });

  it('creates one article for many concurrent retries spread over both instances', async () => {
    const before = (await rawA.listArticles({ limit: 10_000 })).length;
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 === 0 ? a : b, auth, key)));
    const statuses = answers.map((r) => r.status);
    assert.ok(statuses.every((s) => s === 201 || s === 409), statuses.join(','));
    const locations = new Set(answers.filter((r) => r.status === 201).map((r) => r.headers.location));
    assert.equal(locations.size, 1);
    assert.equal((await rawA.listArticles({ limit: 10_000 })).length, before + 1);
  });
});

describe('IdempotencyKeys sweeping', () => {
  const { it } = suiteNeeding(false);
  it('sweeps at most once per interval, at most sweepLimit keys, without the request waiting', async () => {
    const sweeps: Array<[number, number]> = [];
    let now = 1_000_000;
    const keys = new IdempotencyKeys({
      store: {
        claimIdempotencyKey: async () => ({ state: 'claimed' }),
        completeIdempotencyKey: async () => true,
        releaseIdempotencyKey: async () => true,
        sweepIdempotencyKeys: async (at, limit) => { sweeps.push([at, limit]); return 0; },
      },
      clock: () => now,
      sweepIntervalMs: 60_000,
      sweepLimit: 7,
    });
    const ctx = () => ({ req: { method: 'POST', url: '/x', originalUrl: '/x', headers: {} }, res: {}, caller: { name: 'ann' }, doc: undefined, trace: [] }) as never;
    await keys.run(ctx(), 'k', async () => {});
    now += 59_999;
    await keys.run(ctx(), 'k', async () => {});
    now += 1;
    await keys.run(ctx(), 'k', async () => {});
    assert.deepEqual(sweeps, [[1_000_000, 7], [1_060_000, 7]]);
  });
});
