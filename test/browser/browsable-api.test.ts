/**
 * @module test/browser/browsable-api
 * Issue 29 in a real browser: Debian's Chromium (playwright-core 1.64.1) against the real article
 * service behind its embedded gateway, as a person would use the HTML pages: browse and page the
 * list, open an article, sign in with Basic, create, edit, edit a stale copy (412), delete; a
 * hostile title stays text; a form on another site is refused; anonymous pages come from the
 * gateway's cache on the second reader, signed-in pages never do.
 *
 * Screenshots of an article page (as its editor sees it) and of the list go to a temp dir, or to docs/screenshots/ (the
 * README shows those) when ROA_UPDATE_SCREENSHOTS=1, so a CI run leaves the tree clean.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page, Response } from 'playwright-core';
import { CHROMIUM_PATH, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { describe } from '../helpers/node-test.js';
import { send, startTestService, type TestService } from '../helpers/service.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';

const skip = skipReason(chromiumAvailable(), `Chromium not found at ${CHROMIUM_PATH} (run .ci/install-chromium.sh)`);

const SCREENSHOTS = process.env.ROA_UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs', 'screenshots') : undefined;
const EDITOR = { name: 'erin', role: 'editor' as const, password: 'erin-browser-pw' };
const SEEDED = 25;
const seededTitle = (i: number) => `Tea ${String(i).padStart(2, '0')}`;
/** Waits long enough for a busy shared machine; no test depends on it being short. */
const WAIT_MS = 30_000;

interface ApiArticle {
  id: number;
  title: string;
  price: { amount: string; currency: string };
}

describe('browsable API in Chromium (issue 29)', () => {
  const { it, before, after } = suiteNeeding(skip);
  let svc: TestService;
  let gw: string;
  let editorAuth: string;
  let browser: Browser;
  let hostile: { server: Server; base: string };
  let shots: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral' });
    gw = svc.gatewayBase!;
    editorAuth = await svc.addUser(EDITOR.name, EDITOR.role, EDITOR.password);
    await svc.addUser('rita', 'reader');
    for (let i = 1; i <= SEEDED; i++) await createByApi(seededTitle(i), `${i}.50`);
    browser = await launchChromium();
    hostile = await startHostileSite();
    shots = SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'roa-screenshots-'));
    mkdirSync(shots, { recursive: true });
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    if (hostile) {
      hostile.server.closeAllConnections();
      await new Promise((r) => hostile.server.close(r));
    }
    await svc?.close();
    if (shots && SCREENSHOTS === undefined) rmSync(shots, { recursive: true, force: true });
  });

  // ---- helpers: the API as a client other than the browser sees it (the service directly, JSON) ----

  async function createByApi(title: string, amount: string): Promise<number> {
    const res = await send(svc.base, 'POST', '/articles', {
      headers: { authorization: editorAuth, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ title, price: { amount, currency: 'eur' } }),
    });
    assert.equal(res.status, 201, res.text);
    return Number(/\/(\d+)$/.exec(res.headers.location!)![1]);
  }

  async function readByApi(id: number): Promise<{ status: number; article?: ApiArticle }> {
    const res = await send(svc.base, 'GET', `/article/${id}`, { headers: { accept: 'application/json' } });
    return res.status === 200 ? { status: 200, article: { id, ...(JSON.parse(res.text) as Omit<ApiArticle, 'id'>) } } : { status: res.status };
  }

  async function listByApi(): Promise<ApiArticle[]> {
    const res = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200, res.text);
    return (JSON.parse(res.text) as { articles: ApiArticle[] }).articles;
  }

  // ---- helpers: the browser ----

  /** A fresh browser profile (its own HTTP cache and auth cache); `signIn` gives it the editor's password to answer a challenge with. */
  async function newContext(opts: { signIn?: boolean; phone?: boolean } = {}): Promise<BrowserContext> {
    const context = await browser.newContext({
      ...(opts.signIn ? { httpCredentials: { username: EDITOR.name, password: EDITOR.password } } : {}),
      viewport: opts.phone ? { width: 375, height: 740 } : { width: 1100, height: 800 },
      ...(opts.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
    });
    context.setDefaultTimeout(WAIT_MS);
    contexts.push(context);
    return context;
  }

  /** Opens `path` through the gateway, failing on anything but `status`; records dialogs the page opens. */
  async function open(context: BrowserContext, path: string, status = 200): Promise<{ page: Page; response: Response; dialogs: string[] }> {
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const response = (await page.goto(gw + path))!;
    assert.equal(response.status(), status, `${path}: ${await page.content()}`);
    assert.match(response.headers()['content-type'] ?? '', /^text\/html/, `${path} is an HTML page`);
    return { page, response, dialogs };
  }

  /** Clicks the sign-in link: the 401 challenge is answered with the context's credentials, as a browser's password prompt would be. */
  async function signIn(page: Page): Promise<void> {
    await Promise.all([page.waitForEvent('load'), signInLink(page).click()]);
    await signInLink(page).waitFor({ state: 'detached' });
    await assertSignedIn(page);
  }

  const signInLink = (page: Page): Locator => page.getByRole('link', { name: /sign in/i }).first();

  /** The page names the caller and their role, and offers no sign-in link (the author's name alone is no proof). */
  async function assertSignedIn(page: Page): Promise<void> {
    const text = await bodyText(page);
    assert.ok(text.includes(EDITOR.name) && text.includes(EDITOR.role), `${page.url()} names the caller and role`);
    assert.equal(await signInLink(page).count(), 0, `${page.url()}: no sign-in link once signed in`);
  }

  async function waitForText(page: Page, text: string): Promise<void> {
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(text)})`, undefined, { timeout: WAIT_MS });
  }

  const bodyText = (page: Page): Promise<string> => page.evaluate<string>('document.body.innerText');

  /** The form carrying `_method=<method>` (the replace and delete forms). */
  const formWithMethod = (page: Page, method: string): Locator => page.locator(`form:has(input[name="_method"][value="${method}" i])`);

  /** The create form: a POST form on the collection page without `_method`. */
  const createForm = (page: Page): Locator => page.locator('form[method="post" i]:not(:has(input[name="_method"]))').filter({ has: page.locator('[name="title"]') });

  async function fill(form: Locator, title: string, amount: string, currency: string): Promise<void> {
    await form.locator('[name="title"]').fill(title);
    await form.locator('[name="price[amount]"]').fill(amount);
    const cur = form.locator('[name="price[currency]"]');
    if ((await cur.evaluate((el) => el.tagName)) === 'SELECT') await cur.selectOption(currency);
    else await cur.fill(currency);
  }

  /** Submits `form` and returns the response to its POST (a 303, or the error page) once the resulting page has loaded. */
  async function submit(page: Page, form: Locator): Promise<Response> {
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.request().isNavigationRequest());
    const loaded = page.waitForEvent('load');
    await form.locator('button[type="submit"], input[type="submit"], button:not([type])').first().click();
    const response = await posted;
    await loaded;
    return response;
  }

  function assertSeeOther(post: Response, page: Page, path: RegExp): void {
    assert.equal(post.status(), 303, 'a successful form write redirects with 303 See Other');
    assert.match(new URL(page.url()).pathname, path);
  }

  /** Every form control a person fills in has a label (issue 29 §6). */
  async function assertLabelled(page: Page): Promise<void> {
    const unlabelled = await page.evaluate<string[]>(`[...document.querySelectorAll('input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea')]
      .filter((el) => el.labels.length === 0 && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
      .map((el) => el.name || el.outerHTML)`);
    assert.deepEqual(unlabelled, [], 'inputs without a label');
  }

  // ---- scenarios, in order: they share the service and its data ----

  it('browses the list and pages through it with next and previous links', async () => {
    const context = await newContext();
    const { page, response } = await open(context, '/articles?limit=10');
    assert.match(response.headers()['vary'] ?? '', /accept/i);
    assert.ok(response.headers()['etag'], 'the HTML page has its own ETag');
    const csp = response.headers()['content-security-policy'] ?? '';
    assert.ok(csp !== '' && !/unsafe-inline/.test(csp), `a strict Content-Security-Policy: ${csp}`);
    const seen: string[][] = [];
    const itemTitles = async (): Promise<string[]> => {
      const texts = await page.locator('a[href*="/article/"]').allInnerTexts();
      return texts.map((t) => t.trim()).filter((t) => /^Tea \d\d$/.test(t));
    };
    for (let n = 0; n < 10; n++) {
      seen.push(await itemTitles());
      const next = page.locator('a[rel~="next"]').or(page.getByRole('link', { name: /^next/i })).first();
      if ((await next.count()) === 0) break;
      await Promise.all([page.waitForEvent('load'), next.click()]);
    }
    assert.deepEqual(seen.flat(), Array.from({ length: SEEDED }, (_, i) => seededTitle(i + 1)), 'every article once, in order, 10 a page');
    assert.equal(seen.length, 3);

    const previous = page.locator('a[rel~="prev"], a[rel~="previous"]').or(page.getByRole('link', { name: /^prev/i })).first();
    assert.equal(await previous.count(), 1, 'the last page links to the previous one');
    await Promise.all([page.waitForEvent('load'), previous.click()]);
    assert.deepEqual(await itemTitles(), seen[1], 'previous goes back one page');

    await page.goto(gw + '/articles?limit=10');
    await page.screenshot({ path: join(shots, 'list.png'), fullPage: true });
    assert.equal(readFileSync(join(shots, 'list.png')).subarray(1, 4).toString(), 'PNG');
  });

  it('opens an article: title, price with currency, status and headers, Allow, links to the collection, XML and JSON', async () => {
    const id = await createByApi('Darjeeling first flush', '14.20');
    const context = await newContext();
    const { page } = await open(context, '/articles?limit=100');
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Darjeeling first flush' }).first().click()]);
    assert.equal(new URL(page.url()).pathname, `/article/${id}`);
    const text = await bodyText(page);
    for (const shown of ['Darjeeling first flush', '14.20', 'eur', '200', 'GET']) assert.ok(text.toLowerCase().includes(shown.toLowerCase()), `the page shows ${shown}`);
    // The page shows its representation's ETag; the browser got it content-coded (Accept-Encoding: gzip, br),
    // whose ETag is that one with the coding added, so the ETag to look for is the identity form's.
    const identity = await send(gw, 'GET', `/article/${id}`, { headers: { accept: 'text/html' } });
    const etag = identity.headers['etag']!;
    assert.ok(etag, 'an ETag');
    assert.ok((await bodyText(page)).includes(etag), `the ETag ${etag} is shown`);
    assert.ok((await bodyText(page)).toLowerCase().includes('cache-control'), 'Cache-Control is shown');

    const hrefs = await page.evaluate<string[]>(`[...document.querySelectorAll('a[href]')].map((a) => a.href)`);
    assert.ok(hrefs.some((h) => new URL(h).pathname === '/articles'), 'a link to the collection');
    for (const [name, type] of [['XML', 'application/xml'], ['JSON', 'application/json']] as const) {
      const link = page.getByRole('link', { name: new RegExp(`\\b${name}\\b`) }).first();
      const href = await link.getAttribute('href');
      assert.ok(href, `a link to the ${name} representation`);
      const res = await context.request.get(new URL(href, page.url()).href, { headers: { accept: `${type}, text/html;q=0.1` } });
      assert.match(res.headers()['content-type'] ?? '', new RegExp(`^${type}`), `${name} link: ${href}`);
    }
    // An anonymous reader may only read: no forms to write with.
    assert.equal(await formWithMethod(page, 'PUT').count(), 0);
    assert.equal(await formWithMethod(page, 'DELETE').count(), 0);

    // Errors are HTML problem pages for a browser (open() checks the media type), linking back to the list.
    const missing = await open(context, '/article/999999', 404);
    assert.ok((await bodyText(missing.page)).includes('404'), 'the problem page shows its status');
    assert.ok(await missing.page.locator('a[href="/articles"], a[href$="/articles"]').count() > 0, 'a way back to the list');
  });

  it('reads well on a phone-sized viewport (no sideways scrolling) and labels every input', async () => {
    const id = (await listByApi())[0]!.id;
    const context = await newContext({ phone: true, signIn: true });
    for (const path of ['/articles', `/article/${id}`]) {
      const { page } = await open(context, path);
      if (path === '/articles') await signIn(page);
      await page.goto(gw + path);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      assert.ok(overflow <= 0, `${path}: ${overflow}px wider than a phone's screen`);
      await assertLabelled(page);
    }
  });

  it('signs in with Basic from the sign-in link, then shows the name, the role and the forms the role allows', async () => {
    const context = await newContext({ signIn: true });
    const { page } = await open(context, '/articles');
    assert.equal(await createForm(page).count(), 0, 'no create form before signing in');
    await signIn(page);
    await page.goto(gw + '/articles');
    await assertSignedIn(page);
    assert.equal(await createForm(page).count(), 1, 'an editor gets the create form');
  });

  it('creates with the keyboard only: 303 to the new article, which the API then serves', async () => {
    const context = await newContext({ signIn: true });
    const { page } = await open(context, '/articles');
    await signIn(page);
    await page.goto(gw + '/articles');
    await assertLabelled(page);
    // Tab to each field as a keyboard user would; never click.
    const tabTo = async (name: string): Promise<void> => {
      for (let i = 0; i < 80; i++) {
        const here = `document.activeElement?.name === ${JSON.stringify(name)} && !!document.activeElement.closest('form:not(:has(input[name="_method"]))')`;
        if (await page.evaluate<boolean>(here)) return;
        await page.keyboard.press('Tab');
      }
      assert.fail(`Tab never reached the create form's ${name}`);
    };
    await tabTo('title');
    await page.keyboard.type('Gyokuro');
    await tabTo('price[amount]');
    await page.keyboard.type('21.00');
    await tabTo('price[currency]');
    const isSelect = await page.evaluate<boolean>("document.activeElement?.tagName === 'SELECT'");
    if (isSelect) await page.selectOption('[name="price[currency]"]', 'eur');
    else await page.keyboard.type('eur');
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.request().isNavigationRequest());
    const loaded = page.waitForEvent('load');
    await page.keyboard.press('Enter');
    const post = await posted;
    await loaded;
    assertSeeOther(post, page, /^\/article\/\d+$/);
    await waitForText(page, 'Gyokuro');
    const id = Number(/(\d+)$/.exec(new URL(page.url()).pathname)![1]);
    const stored = await readByApi(id);
    assert.deepEqual(stored.article?.price, { amount: '21.00', currency: 'eur' });
    assert.equal(stored.article?.title, 'Gyokuro');
  });

  it('edits an article with the replace form: 303 back to it, new title shown and stored', async () => {
    const id = await createByApi('Hojicha', '7.00');
    const context = await newContext({ signIn: true });
    const { page } = await open(context, `/article/${id}`);
    await signIn(page);
    await page.goto(gw + `/article/${id}`);
    const form = formWithMethod(page, 'PUT');
    assert.equal(await form.count(), 1, 'the owner gets the replace form');
    assert.equal(await form.locator('[name="title"]').inputValue(), 'Hojicha', 'the form starts from the current values');
    await fill(form, 'Hojicha roasted', '7.50', 'eur');
    const post = await submit(page, form);
    assertSeeOther(post, page, new RegExp(`^/article(s)?/${id}$`));
    await waitForText(page, 'Hojicha roasted');
    assert.equal((await readByApi(id)).article?.title, 'Hojicha roasted');
    assert.equal((await readByApi(id)).article?.price.amount, '7.50');

    // The article page as its editor sees it (the forms shown) is the README's picture.
    await page.screenshot({ path: join(shots, 'article.png'), fullPage: true });
    assert.equal(readFileSync(join(shots, 'article.png')).subarray(1, 4).toString(), 'PNG');
  });

  it('editing a stale copy shows a 412 page that links to the current version, and changes nothing', async () => {
    const id = await createByApi('Bancha', '4.00');
    const context = await newContext({ signIn: true });
    const { page } = await open(context, `/article/${id}`);
    await signIn(page);
    await page.goto(gw + `/article/${id}`);
    const form = formWithMethod(page, 'PUT');
    // Someone else replaces it after this page was rendered.
    const other = await send(svc.base, 'PUT', `/article/${id}`, {
      headers: { authorization: editorAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bancha (theirs)', price: { amount: '4.10', currency: 'eur' } }),
    });
    assert.ok(other.status === 200 || other.status === 204, other.text);
    await fill(form, 'Bancha (mine)', '3.90', 'eur');
    const post = await submit(page, form);
    assert.equal(post.status(), 412);
    assert.match(post.headers()['content-type'] ?? '', /^text\/html/, 'an HTML problem page');
    const current = page.locator(`a[href$="/article/${id}"], a[href$="/articles/${id}"]`).first();
    assert.equal(await current.count(), 1, 'the 412 page links to the current version');
    await Promise.all([page.waitForEvent('load'), current.click()]);
    await waitForText(page, 'Bancha (theirs)');
    assert.equal((await readByApi(id)).article?.title, 'Bancha (theirs)', 'the stale edit changed nothing');
  });

  it('deletes with the delete form: 303, and the article is gone', async () => {
    const id = await createByApi('Kukicha', '5.00');
    const context = await newContext({ signIn: true });
    const { page } = await open(context, `/article/${id}`);
    await signIn(page);
    await page.goto(gw + `/article/${id}`);
    const post = await submit(page, formWithMethod(page, 'DELETE'));
    assert.equal(post.status(), 303);
    assert.equal((await readByApi(id)).status, 404);
    assert.ok(!(await bodyText(page)).includes('Kukicha'), 'the page the browser lands on does not list it');
    assert.equal(page.url().startsWith(gw), true);
  });

  it('renders hostile titles as inert text (no script runs, no element injected), on the article and the list', async () => {
    const titles = ['<script>alert("xss-1")</script>', '"><img src=x onerror=alert("xss-2")>', "'><svg onload=alert('xss-3')>"];
    const context = await newContext({ signIn: true });
    const { page, dialogs } = await open(context, '/articles');
    await signIn(page);
    const ids: number[] = [];
    for (const title of titles) {
      // Created through the browser's own create form.
      await page.goto(gw + '/articles');
      await fill(createForm(page), title, '1.00', 'eur');
      const post = await submit(page, createForm(page));
      assertSeeOther(post, page, /^\/article\/\d+$/);
      ids.push(Number(/(\d+)$/.exec(new URL(page.url()).pathname)![1]));
    }
    const anonymous = await newContext();
    const shownOn: Array<[string, string[]]> = [...ids.map((id, i): [string, string[]] => [`/article/${id}`, [titles[i]!]]), ['/articles?limit=100', titles]];
    for (const [path, shown] of shownOn) {
      const reader = await open(anonymous, path);
      await page.goto(gw + path);
      for (const p of [reader.page, page]) {
        const text = await bodyText(p);
        for (const title of shown) assert.ok(text.includes(title), `${path}: ${title} shown as text`);
        const injected = await p.evaluate<{ scripts: number; handlers: number }>(`({
          scripts: [...document.scripts].filter((s) => s.textContent.includes('xss')).length,
          handlers: document.querySelectorAll('[onerror], [onload]').length,
        })`);
        assert.deepEqual(injected, { scripts: 0, handlers: 0 }, `${path}: nothing injected`);
      }
      assert.deepEqual(reader.dialogs, [], `${path}: no dialog fired for the reader`);
    }
    assert.deepEqual(dialogs, [], 'no dialog fired for the editor');
  });

  it('refuses a form posted from another site with 403, whatever it carries, and nothing changes', async () => {
    const id = await createByApi('Genmaicha', '6.00');
    const context = await newContext({ signIn: true });
    const { page } = await open(context, `/article/${id}`);
    await signIn(page);
    await page.goto(gw + `/article/${id}`);
    // The attacker copies everything hidden in the real forms (a read is public), the ETag included.
    const hiddenOf = async (form: Locator): Promise<string[][]> => {
      const inputs = form.locator('input[type="hidden"]');
      const out: string[][] = [];
      for (let i = 0; i < (await inputs.count()); i++) out.push([(await inputs.nth(i).getAttribute('name')) ?? '', (await inputs.nth(i).getAttribute('value')) ?? '']);
      return out;
    };
    const deleteFields = await hiddenOf(formWithMethod(page, 'DELETE'));
    const putFields = await hiddenOf(formWithMethod(page, 'PUT'));
    await page.goto(gw + '/articles');
    const createFields = await hiddenOf(createForm(page));
    const before = await listByApi();

    const attacks = [
      { name: 'create, urlencoded', action: '/articles', enctype: 'application/x-www-form-urlencoded', fields: [...createFields, ['title', 'Forged'], ['price[amount]', '0.01'], ['price[currency]', 'eur']] },
      { name: 'create, multipart', action: '/articles', enctype: 'multipart/form-data', fields: [...createFields, ['title', 'Forged multipart'], ['price[amount]', '0.01'], ['price[currency]', 'eur']] },
      { name: 'replace (_method=PUT)', action: `/article/${id}`, enctype: 'application/x-www-form-urlencoded', fields: [...putFields, ['title', 'Defaced'], ['price[amount]', '0.01'], ['price[currency]', 'eur']] },
      { name: 'delete (_method=DELETE)', action: `/article/${id}`, enctype: 'application/x-www-form-urlencoded', fields: deleteFields },
    ];
    for (const attack of attacks) {
      const evil = await context.newPage();
      const url = `${hostile.base}/?${new URLSearchParams({ action: gw + attack.action, enctype: attack.enctype, fields: JSON.stringify(attack.fields) })}`;
      await evil.goto(url);
      const post = await submit(evil, evil.locator('form'));
      assert.equal(post.status(), 403, `${attack.name}: refused`);
      assert.equal(post.request().headers()['origin'], hostile.base, 'the browser said where the form came from');
      await evil.close();
    }
    assert.deepEqual(await listByApi(), before, 'nothing created, replaced or deleted');
  });

  it('through the gateway: X-Cache MISS then HIT for anonymous readers, never HIT for signed-in ones', async () => {
    const id = await createByApi('Matcha', '30.00');
    for (const path of [`/article/${id}`, '/articles']) {
      // Two anonymous readers, each with a browser of their own (so not the browser's cache).
      const first = await open(await newContext(), path);
      const second = await open(await newContext(), path);
      assert.equal(first.response.headers()['x-cache'], 'MISS', `${path}: first anonymous reader`);
      assert.equal(second.response.headers()['x-cache'], 'HIT', `${path}: second anonymous reader`);
      assert.equal(await bodyText(second.page), await bodyText(first.page));

      for (let i = 0; i < 2; i++) {
        const signedIn = await newContext({ signIn: true });
        const { page } = await open(signedIn, path);
        await signIn(page);
        for (let j = 0; j < 2; j++) {
          const again = (await page.goto(gw + path))!;
          assert.notEqual(again.headers()['x-cache'], 'HIT', `${path}: a signed-in page is never from the cache`);
          await assertSignedIn(page);
        }
      }
      // And the anonymous copy is still the anonymous one.
      const third = await open(await newContext(), path);
      assert.equal(third.response.headers()['x-cache'], 'HIT');
      assert.equal(await signInLink(third.page).count(), 1, `${path}: an anonymous reader never gets a signed-in page`);
      assert.ok(!(await bodyText(third.page)).includes(EDITOR.role), `${path}: no role named for an anonymous reader`);
    }
  });
});

/**
 * Another site (127.0.0.2, so cross-site for the browser too) whose page holds one form posting
 * to the service, built from the query: action, enctype and fields as JSON [[name, value], ...].
 */
async function startHostileSite(): Promise<{ server: Server; base: string }> {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const server = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const fields = JSON.parse(q.get('fields') ?? '[]') as [string, string][];
    const inputs = fields.map(([n, v]) => `<input type="hidden" name="${escape(n)}" value="${escape(v)}">`).join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Win a prize</title><form method="post" action="${escape(q.get('action') ?? '')}" enctype="${escape(q.get('enctype') ?? '')}">${inputs}<button type="submit">Claim</button></form>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const base = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  return { server, base };
}
