/** @module test/auth/consent-pages — the shared sign-in and approval pages on a real server, without a browser. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from '../helpers/node-test.js';
import { withServer } from '../helpers/server.js';
import { createApp } from '../../src/app.js';
import { ConsentPages, FLOW_FIELD, FlowSeal, consentKey, type ConsentAnswer } from '../../src/auth/consent/index.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { FailureThrottle } from '../../src/auth/throttle.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';

const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };
const key = consentKey(randomBytes(32));

describe('ConsentPages', () => {
  let store: Store;
  let clock = Date.now();
  const answers: ConsentAnswer[] = [];
  before(async () => {
    store = await openStore(':memory:');
    await store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('pw-ann-long', FAST_SCRYPT) });
  });
  after(() => store.close());

  function app(throttle = new FailureThrottle()) {
    const pages = new ConsentPages({ key, store, throttle, now: () => clock });
    const view = (flow: Record<string, string>) => ({ client: flow.client!, permissions: ['articles:read'], returnTo: 'https://app.example/cb', formTargets: ['https://app.example/cb'] });
    const a = createApp({ env: 'test' });
    a.get('/consent', (req: Request, res: Response) => {
      pages.show(req, res, 'test', { client: String(req.query.client ?? 'app') }, view({ client: String(req.query.client ?? 'app') }));
    });
    a.post('/consent', async (req: Request, res: Response) => {
      const answer = await pages.receive(req, res, 'test', view);
      if (answer === undefined) return;
      answers.push(answer);
      res.status(200).json({ decision: answer.decision, user: answer.decision === 'approve' ? answer.user.name : null, flow: answer.flow });
    });
    return a;
  }

  async function flowOf(base: string, query = ''): Promise<string> {
    const html = await (await fetch(`${base}/consent${query}`)).text();
    const m = new RegExp(`name="${FLOW_FIELD}" value="([^"]+)"`).exec(html);
    assert.ok(m, html);
    return m[1]!;
  }

  const post = (base: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${base}/consent`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString(), redirect: 'manual' });

  it('serves the form with the security headers and every value escaped', async () => {
    await withServer(app(), async (base) => {
      const res = await fetch(`${base}/consent?client=%3Cscript%3Ealert(1)%3C/script%3E`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
      assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
      assert.match(res.headers.get('content-security-policy')!, /form-action 'self' https:\/\/app\.example/);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const html = await res.text();
      assert.ok(!html.includes('<script>'), 'no raw markup from the query');
      assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
      assert.match(html, /name="username"/);
      assert.match(html, /name="password"/);
      assert.match(html, /name="decision" value="approve"/);
      assert.match(html, /name="decision" value="deny"/);
    });
  });

  it('approves with the right password and hands back the sealed flow', async () => {
    await withServer(app(), async (base) => {
      const flow = await flowOf(base, '?client=app-1');
      const res = await post(base, { username: 'ann', password: 'pw-ann-long', decision: 'approve', [FLOW_FIELD]: flow }, { origin: base });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { decision: 'approve', user: 'ann', flow: { client: 'app-1' } });
    });
  });

  it('denies without a password', async () => {
    await withServer(app(), async (base) => {
      const res = await post(base, { decision: 'deny', [FLOW_FIELD]: await flowOf(base) }, { 'sec-fetch-site': 'same-origin', origin: 'null' });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { decision: string }).decision, 'deny');
    });
  });

  it('shows the form again (403) after a wrong password, keeping the user name escaped', async () => {
    await withServer(app(), async (base) => {
      const res = await post(base, { username: 'ann"><b>', password: 'wrong-password', decision: 'approve', [FLOW_FIELD]: await flowOf(base) });
      assert.equal(res.status, 403);
      const html = await res.text();
      assert.match(html, /Wrong user name or password/);
      assert.ok(html.includes('value="ann&quot;&gt;&lt;b&gt;"'));
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    });
  });

  it('refuses a POST from another origin (403), also one with Origin: null from a cross-site page', async () => {
    await withServer(app(), async (base) => {
      const flow = await flowOf(base);
      const form = { username: 'ann', password: 'pw-ann-long', decision: 'approve', [FLOW_FIELD]: flow };
      const foreign: Array<Record<string, string>> = [{ origin: 'http://localhost:1' }, { origin: 'null', 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null' }];
      for (const headers of foreign) {
        const res = await post(base, form, headers);
        assert.equal(res.status, 403, JSON.stringify(headers));
        assert.match(await res.text(), /another site/);
      }
    });
  });

  it('refuses an altered, expired or other-purpose flow (400)', async () => {
    await withServer(app(), async (base) => {
      const flow = await flowOf(base);
      const other = new FlowSeal(key).seal('other', { client: 'app' });
      const altered = flow.slice(0, -2) + (flow.endsWith('AA') ? 'BB' : 'AA');
      for (const f of [altered, other, '', 'x.y']) {
        const res = await post(base, { decision: 'deny', [FLOW_FIELD]: f });
        assert.equal(res.status, 400);
      }
      clock += 11 * 60_000;
      const res = await post(base, { decision: 'deny', [FLOW_FIELD]: flow });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /expired/);
      clock = Date.now();
    });
  });

  it('refuses malformed forms with a clear 4xx: repeated fields, bad escapes, other types, huge bodies', async () => {
    await withServer(app(), async (base) => {
      const flow = await flowOf(base);
      const raw = (body: string, type = 'application/x-www-form-urlencoded') =>
        fetch(`${base}/consent`, { method: 'POST', headers: { 'content-type': type }, body });
      assert.equal((await raw(`decision=deny&decision=approve&flow=${flow}`)).status, 400);
      assert.equal((await raw(`decision=deny&flow=${flow}&x=%zz`)).status, 400);
      assert.equal((await raw(`decision=deny&flow=${flow}&x=%C3%28`)).status, 400);
      assert.equal((await raw(`decision=deny&flow=${flow}`, 'application/json')).status, 415);
      assert.equal((await raw(`decision=deny&flow=${flow}&x=${'a'.repeat(20_000)}`)).status, 413);
      assert.equal((await raw(`decision=maybe&flow=${flow}`)).status, 400);
    });
  });

  it('counts failed sign-ins toward the Basic throttle (user:<name> per source) before checking', async () => {
    const throttle = new FailureThrottle({ limit: 3 });
    await withServer(app(throttle), async (base) => {
      const flow = await flowOf(base);
      for (let i = 0; i < 3; i++) {
        assert.equal((await post(base, { username: 'ann', password: 'wrong-' + i, decision: 'approve', [FLOW_FIELD]: flow })).status, 403);
      }
      const res = await post(base, { username: 'ann', password: 'pw-ann-long', decision: 'approve', [FLOW_FIELD]: flow });
      assert.equal(res.status, 429, 'the right password too, once the limit is reached');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
      // The same subject Basic counts: a Basic check from this address is throttled as well.
      assert.ok((await throttle.attempt('user:ann', '127.0.0.1')) > 0);
    });
  });
});
