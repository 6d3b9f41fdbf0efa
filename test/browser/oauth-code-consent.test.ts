/**
 * @module test/browser/oauth-code-consent
 * The OAuth 2.0 sign-in and approval page in a real browser (Debian's Chromium, playwright-core
 * 1.64.1): Chromium opens the authorization request, signs in and approves, follows the 303 to the
 * application's loopback redirect URI, whose code oauth4webapi exchanges; a wrong password shows
 * the form again; a page on another loopback origin posting the approval form is refused (403)
 * and the application gets nothing.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { CHROMIUM_PATH, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { describe } from '../helpers/node-test.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { flowOf, insecure, NATIVE_REDIRECT, PASSWORD, startCodeEnv, type CodeEnv } from '../auth/oauth-code-helpers.js';

const skip = skipReason(chromiumAvailable(), `Chromium not found at ${CHROMIUM_PATH} (run .ci/install-chromium.sh)`);
/** Waits long enough for a busy shared machine; no test depends on it being short. */
const WAIT_MS = 60_000;

/** A loopback HTTP server standing for a site: the app receiving the redirect, or a hostile page. */
interface Site {
  server: Server;
  base: string;
  hits: URL[];
  close(): Promise<void>;
}

async function startSite(host: string, page: (url: URL) => string): Promise<Site> {
  const hits: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    hits.push(url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(url));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const base = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    server, base, hits,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      // A browser's keep-alive connections would hold close() open.
      server.closeAllConnections();
    }),
  };
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

describe('the OAuth 2.0 approval page in Chromium', () => {
  const { it, before, after } = suiteNeeding(skip);
  let env: CodeEnv;
  let browser: Browser;
  let app: Site;
  let hostile: Site;
  const contexts: BrowserContext[] = [];

  before(async () => {
    env = await startCodeEnv();
    browser = await launchChromium();
    app = await startSite('127.0.0.1', () => '<!doctype html><title>App</title><p>Signed in.</p>');
    // Another origin on loopback: a page that posts a copy of the approval form to the service.
    hostile = await startSite('127.0.0.2', (url) => {
      const fields = JSON.parse(url.searchParams.get('fields') ?? '{}') as Record<string, string>;
      const inputs = Object.entries(fields).map(([n, v]) => `<input type="hidden" name="${attr(n)}" value="${attr(v)}">`).join('');
      return `<!doctype html><title>Win a prize</title><form method="post" action="${attr(url.searchParams.get('action') ?? '')}">${inputs}<button type="submit" id="claim">Claim</button></form>`;
    });
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await app?.close();
    await hostile?.close();
    await env?.close();
  });

  async function newPage() {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    return page;
  }

  async function request() {
    const redirectUri = `${app.base}/native/cb`;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL('/oauth/authorize', env.base);
    url.search = new URLSearchParams({
      response_type: 'code', client_id: 'native', redirect_uri: redirectUri, state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }).toString();
    return { url: url.href, redirectUri, verifier, state };
  }

  it('signs in, approves and lands on the app with a code oauth4webapi exchanges', async () => {
    const { url, redirectUri, verifier, state } = await request();
    // Registered without a port; the app listens on whichever port it got (RFC 8252 §7.3).
    assert.equal(redirectUri.replace(/:\d+\//, '/'), NATIVE_REDIRECT);
    const page = await newPage();
    const shown = await page.goto(url);
    assert.equal(shown?.status(), 200);
    assert.equal(await page.locator('#client').textContent(), 'native');
    assert.equal(await page.locator('#return-to').textContent(), redirectUri);
    // A wrong password first: the form comes back with the name kept and a message.
    await page.getByLabel('User name').fill('ann');
    await page.getByLabel('Password').fill('not-the-password');
    const [wrong] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.locator('#approve').click()]);
    assert.equal(wrong.status(), 403);
    await page.locator('#error').waitFor();
    assert.equal(await page.getByLabel('User name').inputValue(), 'ann');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: WAIT_MS }), page.locator('#approve').click()]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('state'), state);
    assert.equal(landed.searchParams.get('iss'), env.as.issuer);
    const params = oauth.validateAuthResponse(env.as, env.native, landed, state);
    const tokens = await oauth.authorizationCodeGrantRequest(env.as, env.native, oauth.None(), params, redirectUri, verifier, insecure)
      .then((r) => oauth.processAuthorizationCodeResponse(env.as, env.native, r));
    assert.equal(tokens.scope, 'articles:read');
    const read = await fetch(env.base + '/articles', { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
    assert.equal(read.status, 200);
  });

  it('denies, sending the app access_denied', async () => {
    const { url, redirectUri, state } = await request();
    const page = await newPage();
    await page.goto(url);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: WAIT_MS }), page.locator('#deny').click()]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('error'), 'access_denied');
    assert.equal(landed.searchParams.get('state'), state);
  });

  it('refuses the approval form posted by a page on another origin (403), and the app gets nothing', async () => {
    const { url } = await request();
    // The attacker copies a real form (its sealed flow) and the victim's credentials are typed for them.
    const flow = flowOf(await (await fetch(url)).text());
    const fields = { flow, username: 'ann', password: PASSWORD, decision: 'approve' };
    const hits = app.hits.length;
    const codes = env.codeRows();
    const page = await newPage();
    await page.goto(`${hostile.base}/?action=${encodeURIComponent(url)}&fields=${encodeURIComponent(JSON.stringify(fields))}`);
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url() === url && r.request().method() === 'POST'), page.locator('#claim').click()]);
    assert.equal(refused.status(), 403);
    assert.match(await refused.text(), /another site/);
    assert.equal(app.hits.length, hits, 'no redirect reached the app');
    assert.equal(env.codeRows(), codes, 'no code stored');
  });
});
