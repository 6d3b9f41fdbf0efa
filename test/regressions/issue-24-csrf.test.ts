/**
 * @module test/regressions/issue-24-csrf
 * Issue 24 §7: a browser that once answered the Basic challenge sends the credentials with any form
 * post, also one made by another site. Writes arriving as bodies a page on another origin can send
 * without a CORS preflight (urlencoded, multipart, text/plain, or no Content-Type) are refused with
 * 403 unless `Origin` (or, without it, `Sec-Fetch-Site: same-origin`) shows the service's own origin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { startTestService, send, type TestService } from '../helpers/service.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const PRICE = 'price[amount]=1.00&price[currency]=eur';

describe('cross-site form writes (issue 24 §7)', () => {
  let svc: TestService;
  let auth: string;
  let direct: string;
  let viaGateway: string;
  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral' });
    auth = await svc.addUser('eve-victim', 'editor');
    direct = svc.base;
    viaGateway = svc.gatewayBase!;
  });
  after(() => svc.close());

  /** Creates an article by PUT (JSON, no Origin) and answers its path. */
  async function article(slug: string): Promise<string> {
    const res = await send(direct, 'PUT', `/articles/${slug}`, {
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: slug, price: { amount: '1.00', currency: 'eur' } }),
    });
    assert.equal(res.status, 201, res.text);
    return `/articles/${slug}`;
  }

  async function exists(path: string): Promise<boolean> {
    return (await send(direct, 'GET', path)).status === 200;
  }

  it('refuses a form from another origin posting _method=DELETE (403 problem, the article stays)', async () => {
    const path = await article('csrf-delete');
    for (const base of [direct, viaGateway]) {
      const res = await send(base, 'POST', path, { headers: { ...FORM, authorization: auth, origin: 'https://evil.example' }, body: '_method=DELETE' });
      assert.equal(res.status, 403, res.text);
      assert.match(res.headers['content-type']!, /^application\/problem\+json/);
      assert.equal(JSON.parse(res.text).status, 403);
      assert.ok(await exists(path), 'nothing was deleted');
    }
  });

  it('refuses Origin: null, another port, another scheme, a same-site subdomain, and every Sec-Fetch-Site but same-origin', async () => {
    const path = await article('csrf-variants');
    const host = new URL(direct).host;
    const refused: Record<string, string>[] = [
      { origin: 'null' },
      { origin: `http://127.0.0.1:1` },
      { origin: `https://${host}` },
      { origin: `http://sub.${host.split(':')[0]}` },
      { origin: 'not a url' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'none' },
      // Origin wins over Sec-Fetch-Site.
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    ];
    for (const headers of refused) {
      const res = await send(direct, 'POST', path, { headers: { ...FORM, ...headers, authorization: auth }, body: '_method=DELETE' });
      assert.equal(res.status, 403, JSON.stringify(headers));
    }
    assert.ok(await exists(path));
  });

  it('refuses every body type a cross-site page sends without a preflight: multipart, text/plain, none; creating as well as overriding', async () => {
    const before = JSON.parse((await send(direct, 'GET', '/articles', { headers: { accept: 'application/json' } })).text);
    const cross = { authorization: auth, origin: 'https://evil.example' };
    const attempts: Array<{ headers: Record<string, string>; body: string }> = [
      { headers: { ...FORM, ...cross }, body: `title=Loot&${PRICE}` },
      { headers: { 'content-type': 'multipart/form-data; boundary=x', ...cross }, body: '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nLoot\r\n--x--\r\n' },
      { headers: { 'content-type': 'text/plain;charset=UTF-8', ...cross }, body: `title=Loot&${PRICE}` },
      { headers: { 'content-type': 'TEXT/PLAIN', ...cross }, body: '{"title":"Loot"}' },
      { headers: cross, body: '{"title":"Loot","price":{"amount":"1.00","currency":"eur"}}' },
    ];
    for (const { headers, body } of attempts) {
      const res = await send(direct, 'POST', '/articles', { headers, body });
      assert.equal(res.status, 403, `${JSON.stringify(headers)}: ${res.text}`);
    }
    const afterList = JSON.parse((await send(direct, 'GET', '/articles', { headers: { accept: 'application/json' } })).text);
    assert.deepEqual(afterList, before, 'nothing was created');
  });

  it("accepts a form from the service's own origin, directly and through the gateway (which forwards Host)", async () => {
    for (const [i, base] of [direct, viaGateway].entries()) {
      const path = await article(`csrf-same-${i}`);
      const res = await send(base, 'POST', path, { headers: { ...FORM, authorization: auth, origin: base }, body: '_method=DELETE' });
      assert.equal(res.status, 204, res.text);
      assert.equal(await exists(path), false);
    }
    const created = await send(direct, 'POST', '/articles', { headers: { ...FORM, authorization: auth, 'sec-fetch-site': 'same-origin' }, body: `title=Mine&${PRICE}` });
    assert.equal(created.status, 201, created.text);
  });

  it('leaves clients that send neither Origin nor Sec-Fetch-Site (curl, libraries) as they were', async () => {
    const path = await article('csrf-curl');
    const res = await send(direct, 'POST', path, { headers: { ...FORM, authorization: auth }, body: '_method=DELETE' });
    assert.equal(res.status, 204, res.text);
  });

  it('does not apply to bodies a cross-site page cannot send without a preflight (JSON) nor to safe methods', async () => {
    const res = await send(direct, 'PUT', '/articles/csrf-json', {
      headers: { authorization: auth, 'content-type': 'application/json', origin: 'https://app.example' },
      body: JSON.stringify({ title: 'Json', price: { amount: '1.00', currency: 'eur' } }),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((await send(direct, 'GET', '/articles/csrf-json', { headers: { origin: 'https://evil.example' } })).status, 200);
  });
});

describe('cross-site form writes with a configured public origin (issue 24 §7)', () => {
  it('accepts the configured origin (a TLS front end), and still the request\'s own', async () => {
    const svc = await startTestService({ issuer: 'https://articles.example' });
    try {
      const auth = await svc.addUser('pat', 'editor');
      const post = (origin: string, title: string) => send(svc.base, 'POST', '/articles', { headers: { ...FORM, authorization: auth, origin }, body: `title=${title}&${PRICE}` });
      assert.equal((await post('https://articles.example', 'Front')).status, 201);
      assert.equal((await post('HTTPS://ARTICLES.EXAMPLE:443', 'Caps')).status, 201);
      assert.equal((await post(svc.base, 'Own')).status, 201);
      assert.equal((await post('http://articles.example', 'Plain')).status, 403);
    } finally {
      await svc.close();
    }
  });
});
