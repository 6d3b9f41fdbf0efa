/**
 * @module test/auth/oauth-code-hostile
 * Hostile input to the code flow's endpoints (GET and POST /oauth/authorize, the authorization_code
 * grant): repeated parameters, bad percent-encoding, huge values, forms from elsewhere. Each gets a
 * clear 4xx, never a redirect it should not make, and no code is stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { request } from '../helpers/server.js';
import { answerPage, flowOf, PASSWORD, pkceRequest, startCodeEnv, WEB_REDIRECT, type CodeEnv } from './oauth-code-helpers.js';

describe('the code flow under hostile input', () => {
  let env: CodeEnv;
  before(async () => {
    env = await startCodeEnv();
  });
  after(() => env?.close());

  const good = () => pkceRequest(env, 'web', WEB_REDIRECT);

  it('answers a malformed authorization request with a 4xx page and no redirect', async () => {
    const { url } = await good();
    const target = new URL(url).pathname + new URL(url).search;
    const cases: Array<[string, number]> = [
      [target + '&state=again', 400],
      [target + '&client_id=web', 400],
      [target + '&x=%zz', 400],
      [target + '&x=%C3%28', 400],
      [target + '&x=%ED%A0%80', 400],
      [target.replace(/state=[^&]*/, `state=${'s'.repeat(2049)}`), 400],
      [target.replace(/redirect_uri=[^&]*/, `redirect_uri=${encodeURIComponent(WEB_REDIRECT + 'x'.repeat(2100))}`), 400],
      [target + `&padding=${'p'.repeat(9000)}`, 414],
      ['/oauth/authorize', 400],
      ['/oauth/authorize?client_id=', 400],
    ];
    for (const [path, status] of cases) {
      const res = await request(env.base, 'GET', path);
      assert.equal(res.status, status, path.slice(0, 120));
      assert.equal(res.headers.location, undefined, 'never redirected');
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['x-frame-options'], 'DENY');
    }
    assert.equal(env.codeRows(), 0);
  });

  it('refuses malformed, oversized, foreign and stale approvals with a 4xx, storing no code', async () => {
    const { url } = await good();
    const html = await (await fetch(url)).text();
    const flow = flowOf(html);
    const target = new URL(url).pathname + new URL(url).search;
    const form = `username=ann&password=${PASSWORD}&decision=approve&flow=${flow}`;
    const post = (body: string, headers: Record<string, string> = {}) =>
      request(env.base, 'POST', target, { headers: { 'content-type': 'application/x-www-form-urlencoded', origin: env.base, ...headers }, body });
    const cases: Array<[string, Promise<{ status: number; headers: Record<string, unknown> }>, number]> = [
      ['repeated decision', post(form + '&decision=deny'), 400],
      ['repeated flow', post(form + `&flow=${flow}`), 400],
      ['bad escape', post(form + '&x=%zz'), 400],
      ['not UTF-8', post(form + '&x=%FF'), 400],
      ['raw bytes', post(form + '&x=\u00e9'), 400],
      ['huge', post(form + `&x=${'a'.repeat(20_000)}`), 413],
      ['JSON', post(JSON.stringify({ username: 'ann' }), { 'content-type': 'application/json' }), 415],
      ['Latin-1 form', post(form, { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' }), 415],
      ['altered flow', post(form.replace(/flow=[^&]*/, `flow=${flow.slice(0, -3)}abc`)), 400],
      ['no flow', post(`username=ann&password=${PASSWORD}&decision=approve`), 400],
      ['another origin', post(form, { origin: 'http://localhost:1' }), 403],
      ['a cross-site fetch', post(form, { origin: 'null', 'sec-fetch-site': 'cross-site' }), 403],
      ['no decision', post(`username=ann&password=${PASSWORD}&flow=${flow}`), 400],
    ];
    for (const [name, p, status] of cases) {
      const res = await p;
      assert.equal(res.status, status, name);
      assert.equal(res.headers.location, undefined, name);
    }
    assert.equal(env.codeRows(), 0, 'no code stored');
    // The same form, untouched, still works: nothing above spent it.
    const ok = await post(form);
    assert.equal(ok.status, 303);
    assert.equal(env.codeRows(), 1);
  });

  it('shows the form again after a wrong password, storing nothing', async () => {
    const before = env.codeRows();
    const { url } = await good();
    const wrong = await answerPage(env, url, { username: 'ann', password: 'not-the-password', decision: 'approve' });
    assert.equal(wrong.status, 403);
    assert.match(await wrong.text(), /Wrong user name or password/);
    assert.equal(env.codeRows(), before);
  });

  it('answers repeated or oversized parameters at the token endpoint with invalid_request', async () => {
    const post = (body: string) => request(env.base, 'POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`web:${env.webSecret}`).toString('base64') }, body,
    });
    for (const body of [
      'grant_type=authorization_code&code=a&code=b&redirect_uri=x&code_verifier=' + 'v'.repeat(43),
      'grant_type=authorization_code&code=' + 'c'.repeat(20_000),
    ]) {
      const res = await post(body);
      assert.equal(res.status, 400);
      assert.equal((JSON.parse(res.text) as { error: string }).error, 'invalid_request');
    }
    const garbage = await post(`grant_type=authorization_code&code=%zz&redirect_uri=x&code_verifier=${'v'.repeat(43)}`);
    assert.equal(garbage.status, 400);
    assert.equal((JSON.parse(garbage.text) as { error: string }).error, 'invalid_grant');
  });
});
