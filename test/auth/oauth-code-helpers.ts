/**
 * @module test/auth/oauth-code-helpers
 * A started service with users and code-flow clients, and a stand-in for the browser's part of the
 * flow (fetch the page, post the form back from the service's own origin).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as oauth from 'oauth4webapi';
import { hashPassword } from '../../src/auth/passwords.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import type { ServiceOptions } from '../../src/service.js';
import { startTestService, type TestService } from '../helpers/service.js';

export const insecure = { [oauth.allowInsecureRequests]: true } as const;
export const PASSWORD = 'ann-password-long';
export const WEB_REDIRECT = 'http://127.0.0.1/web/cb?app=1';
export const NATIVE_REDIRECT = 'http://127.0.0.1/native/cb';

export interface CodeEnv {
  svc: TestService;
  base: string;
  as: oauth.AuthorizationServer;
  web: oauth.Client;
  webSecret: string;
  native: oauth.Client;
  clock: { now: number };
  /** Rows in the codes table, read over a connection of its own. */
  codeRows(): number;
  close(): Promise<void>;
}

/** The service on a SQLite file of its own, or on the database `opts.db` names (codeRows then unavailable). */
export async function startCodeEnv(opts: ServiceOptions = {}): Promise<CodeEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'roa-code-'));
  const db = opts.db ?? join(dir, 'roa.db');
  const clock = { now: Date.now() };
  const svc = await startTestService({ oauthClock: () => clock.now, ...opts, db });
  const store = svc.running.store;
  await store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword(PASSWORD, { N: 1024, r: 8, p: 1 }) });
  const { clientSecret, secretHash } = generateClientSecret();
  await store.oauth2.createClient({ clientId: 'web', secretHash, userName: 'ann', scopes: ['articles:read', 'articles:write'], redirectUris: [WEB_REDIRECT] });
  await store.oauth2.createClient({ clientId: 'native', secretHash: '', userName: 'ann', scopes: ['articles:read'], redirectUris: [NATIVE_REDIRECT] });
  const issuer = new URL(svc.base);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const counter = opts.db === undefined ? new Database(db, { readonly: true }) : undefined;
  return {
    svc, base: svc.base, as, clock,
    web: { client_id: 'web' }, webSecret: clientSecret,
    native: { client_id: 'native' },
    codeRows: () => {
      if (counter === undefined) throw new Error('codeRows reads the SQLite file startCodeEnv made');
      return (counter.prepare('SELECT count(*) AS n FROM oauth2_authorization_codes').get() as { n: number }).n;
    },
    async close() {
      counter?.close();
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The authorization request's URL; `undefined` values are left out. */
export function authorizeUrl(env: CodeEnv, params: Record<string, string | undefined>): string {
  const u = new URL('/oauth/authorize', env.base);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

/** A complete, valid request for `client` (PKCE S256), and its verifier and state. */
export async function pkceRequest(env: CodeEnv, clientId: string, redirectUri: string, extra: Record<string, string | undefined> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = authorizeUrl(env, {
    response_type: 'code', client_id: clientId, redirect_uri: redirectUri, state, scope: undefined,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra,
  });
  return { url, verifier, state };
}

/** The sealed flow of a shown page. */
export function flowOf(html: string): string {
  const m = /name="flow" value="([^"]+)"/.exec(html);
  assert.ok(m, `no sealed flow in the page: ${html.slice(0, 300)}`);
  return m[1]!;
}

/** Opens the page (200) and posts the form back from the service's own origin; the answer, not followed. */
export async function answerPage(env: CodeEnv, url: string, form: Record<string, string>, headers: Record<string, string> = { origin: env.base }): Promise<Response> {
  const page = await fetch(url);
  const html = await page.text();
  assert.equal(page.status, 200, html);
  return fetch(url, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ flow: flowOf(html), ...form }).toString(),
  });
}

/** Approves as ann and returns the URL the browser is sent to. */
export async function approve(env: CodeEnv, url: string): Promise<URL> {
  const res = await answerPage(env, url, { username: 'ann', password: PASSWORD, decision: 'approve' });
  assert.equal(res.status, 303, await res.text());
  return new URL(res.headers.get('location')!);
}

/** The OAuth error of a promise oauth4webapi rejects with. */
export async function oauthError(p: Promise<unknown>): Promise<{ error: string; status: number }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return { error: err.error, status: err.status };
    throw err;
  }
  assert.fail('expected an OAuth error');
}
