/**
 * @module test/auth/oauth1-flow-browser
 * A real browser (Debian Chromium through playwright-core) signs in and approves on
 * /oauth1/authorize: it follows the 303 to the client's callback (a loopback server here), whose
 * verifier the test then exchanges; out of band it reads the verifier off the page; and a form
 * another site makes it post is refused.
 */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth } from 'oauth';
import type { Browser } from 'playwright-core';
import { hashToken } from '../../src/auth/tokens.js';
import { chromiumAvailable, CHROMIUM_PATH, launchChromium } from '../helpers/browser.js';
import { send } from '../helpers/service.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { flowOf, startOAuth1Service, type OAuth1TestService } from './oauth1-flow-helpers.js';

const skip = skipReason(chromiumAvailable(), `Chromium not found at ${CHROMIUM_PATH} (apt install chromium, or set ROA_CHROMIUM)`);

interface Credentials { token: string; secret: string }

describe('OAuth 1.0a approval in Chromium', () => {
  const { it, before, after } = suiteNeeding(skip);
  let svc: OAuth1TestService;
  let browser: Browser;
  /** The client's side: the callback, and a page of another site. */
  let site: Server;
  let siteBase: string;
  let evilForm = '';
  let client: OAuth;
  let oob: OAuth;

  before(async () => {
    svc = await startOAuth1Service();
    await svc.addUser('ann', 'editor', 'ann-password-1');
    site = createServer((req, res) => {
      if (req.url?.startsWith('/evil')) {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(evilForm);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('client received the answer');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    // localhost, not 127.0.0.1: another origin than the service's, as a client's site is.
    siteBase = `http://localhost:${(site.address() as AddressInfo).port}`;
    const secret = (await svc.addConsumer('browser-app', { callbacks: [`${siteBase}/ready`, 'oob'] }))!;
    client = new OAuth(`${svc.base}/oauth1/initiate`, `${svc.base}/oauth1/token`, 'browser-app', secret, '1.0', `${siteBase}/ready`, 'HMAC-SHA1');
    oob = new OAuth(`${svc.base}/oauth1/initiate`, `${svc.base}/oauth1/token`, 'browser-app', secret, '1.0', 'oob', 'HMAC-SHA1');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await svc?.close();
  });

  const initiate = (o: OAuth) => new Promise<Credentials>((resolve, reject) =>
    o.getOAuthRequestToken((err, token, secret) => (err ? reject(new Error(JSON.stringify(err))) : resolve({ token, secret }))));
  const exchange = (o: OAuth, t: Credentials, verifier: string) => new Promise<Credentials>((resolve, reject) =>
    o.getOAuthAccessToken(t.token, t.secret, verifier, (err, token, secret) => (err ? reject(new Error(JSON.stringify(err))) : resolve({ token, secret }))));
  const getStatus = (o: OAuth, c: Credentials) => new Promise<number>((resolve) =>
    o.get(`${svc.base}/articles`, c.token, c.secret, (err, _d, res) => resolve(err ? err.statusCode : res!.statusCode!)));

  it('signs in, approves, lands on the callback with the verifier, which the client exchanges', async () => {
    const temporary = await initiate(client);
    const page = await browser.newPage();
    try {
      const shown = await page.goto(`${svc.base}/oauth1/authorize?oauth_token=${temporary.token}`);
      assert.equal(shown?.status(), 200);
      assert.equal(await page.textContent('#client'), 'browser-app');
      await page.fill('#username', 'ann');
      await page.fill('#password', 'ann-password-1');
      await Promise.all([page.waitForURL(`${siteBase}/ready?**`), page.click('#approve')]);
      const landed = new URL(page.url());
      assert.equal(landed.searchParams.get('oauth_token'), temporary.token);
      const token = await exchange(client, temporary, landed.searchParams.get('oauth_verifier')!);
      assert.equal(await getStatus(client, token), 200);
    } finally {
      await page.close();
    }
  });

  it('a wrong password shows the form again; out of band, the page shows the verifier', async () => {
    const temporary = await initiate(oob);
    const page = await browser.newPage();
    try {
      await page.goto(`${svc.base}/oauth1/authorize?oauth_token=${temporary.token}`);
      await page.fill('#username', 'ann');
      await page.fill('#password', 'not-the-password');
      const refused = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#approve')]);
      assert.equal(refused[0].status(), 403);
      assert.match((await page.textContent('#error')) ?? '', /Wrong user name or password/);
      await page.fill('#password', 'ann-password-1');
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.status() === 200), page.click('#approve')]);
      const verifier = (await page.textContent('#code'))!.trim();
      const token = await exchange(oob, temporary, verifier);
      assert.equal(await getStatus(oob, token), 200);
    } finally {
      await page.close();
    }
  });

  it('a form another site makes the browser post is refused (403) and approves nothing', async () => {
    const temporary = await initiate(client);
    const action = `${svc.base}/oauth1/authorize?oauth_token=${temporary.token}`;
    const flow = flowOf((await send(svc.base, 'GET', `/oauth1/authorize?oauth_token=${temporary.token}`)).text);
    const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    evilForm = `<!DOCTYPE html><form method="post" action="${attr(action)}">
      <input name="flow" value="${attr(flow)}"><input name="username" value="ann"><input name="password" value="ann-password-1">
      <button name="decision" value="approve" id="go">go</button></form>`;
    const page = await browser.newPage();
    try {
      await page.goto(`${siteBase}/evil`);
      const [answer] = await Promise.all([page.waitForResponse((r) => r.url() === action), page.click('#go')]);
      assert.equal(answer.status(), 403);
      assert.equal(new URL(page.url()).origin, svc.base, 'no redirect to the callback');
    } finally {
      await page.close();
    }
    const pending = await svc.running.store.oauth1.getTemporaryCredentials(hashToken(temporary.token), Date.now());
    assert.equal(pending?.verifierHash, null, 'not approved');
  });
});
