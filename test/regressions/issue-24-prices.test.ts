/**
 * @module test/regressions/issue-24-prices
 * Issue 24 §7: prices keep exact decimals of at least 30 integer and 18 fraction digits in every
 * format (XML, JSON, form) and on both databases, never through a float.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe } from '../helpers/node-test.js';
import pg from 'pg';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import type { Store } from '../../src/storage/store.js';
import { send, startTestService, type TestService } from '../helpers/service.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL as PG_URL } from '../helpers/services.js';

const SCHEMA = `roa_test_prices_${randomBytes(5).toString('hex')}`;

const AMOUNTS = ['12345678901234567890.99', '0.000001', '123456789012345678901234567890.123456789012345678', '1.000000000000000000', '007.50'];

const bodies: Record<string, (amount: string) => string> = {
  'application/xml': (amount) => `<article><title>Exact</title><price currency="eur">${amount}</price></article>`,
  'application/json': (amount) => JSON.stringify({ title: 'Exact', price: { amount, currency: 'eur' } }),
  'application/x-www-form-urlencoded': (amount) => `title=Exact&price[amount]=${amount}&price[currency]=eur`,
};

function priceCases(name: string, open: () => Promise<{ svc: TestService; done: () => Promise<void> }>, skip: string | false = false): void {
  describe(`issue 24: exact prices over HTTP on ${name}`, () => {
    const { it, before, after } = suiteNeeding(skip);
    let svc: TestService;
    let done: () => Promise<void>;
    let editor: string;
    before(async () => {
      ({ svc, done } = await open());
      editor = await svc.addUser('ed', 'editor');
    });
    after(() => done?.());

    for (const [type, body] of Object.entries(bodies)) {
      it(`stores and shows ${type} prices digit for digit, in XML and JSON`, async () => {
        for (const amount of AMOUNTS) {
          const created = await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': type }, body: body(amount) });
          assert.equal(created.status, 201, `${amount}: ${created.text}`);
          const json = await send(svc.base, 'GET', created.headers.location!, { headers: { accept: 'application/json' } });
          assert.equal(JSON.parse(json.text).price.amount, amount);
          const xml = await send(svc.base, 'GET', created.headers.location!, { headers: { accept: 'application/xml' } });
          assert.equal(xml.text, `<article><title>Exact</title><price currency="eur">${amount}</price></article>`);
          const slug = `exact-${randomBytes(4).toString('hex')}`;
          const put = await send(svc.base, 'PUT', `/articles/${slug}`, { headers: { authorization: editor, 'content-type': type, accept: 'application/json' }, body: body(amount) });
          assert.equal(put.status, 201, put.text);
          assert.equal(JSON.parse(put.text).price.amount, amount);
        }
      });
    }

    it('refuses more than 30 integer or 18 fraction digits, and anything that is not plain decimal digits, with 422', async () => {
      const refused = ['1234567890123456789012345678901', '0.1234567890123456789', '1e3', '-1', '1.', '.5', ' 1', '1,5', '０'];
      for (const amount of refused) {
        for (const [type, body] of Object.entries(bodies)) {
          const res = await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': type, accept: 'application/json' }, body: body(encodeForType(type, amount)) });
          assert.equal(res.status, 422, `${type} ${JSON.stringify(amount)}: ${res.text}`);
          assert.deepEqual(JSON.parse(res.text).errors.map((e: { field: string }) => e.field), ['price.amount']);
        }
      }
    });

    it('refuses a JSON number (its digits are gone once parsed) with 422 naming price.amount', async () => {
      for (const raw of ['9.90', '12345678901234567890.99', '1']) {
        const res = await send(svc.base, 'POST', '/articles', {
          headers: { authorization: editor, 'content-type': 'application/json', accept: 'application/json' },
          body: `{"title":"Number","price":{"amount":${raw},"currency":"eur"}}`,
        });
        assert.equal(res.status, 422, res.text);
        const problem = JSON.parse(res.text);
        assert.deepEqual(problem.errors.map((e: { field: string }) => e.field), ['price.amount']);
        assert.match(problem.errors[0].message, /string/);
      }
    });
  });
}

/** Form values are percent-encoded; the others go in as they are. */
function encodeForType(type: string, amount: string): string {
  return type === 'application/x-www-form-urlencoded' ? encodeURIComponent(amount) : amount;
}

priceCases('SQLite', async () => {
  const svc = await startTestService();
  return { svc, done: () => svc.close() };
});

const pgSkip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(PG_URL)} (set ROA_TEST_PG_URL)`);

priceCases('PostgreSQL', async () => {
  const store: Store = await PostgresStore.open({ connectionString: PG_URL, schema: SCHEMA });
  const svc = await startTestService({ store });
  return {
    svc,
    done: async () => {
      await svc.close();
      await store.close().catch(() => {});
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
      await client.end();
    },
  };
}, pgSkip);
