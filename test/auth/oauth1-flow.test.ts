/**
 * @module test/auth/oauth1-flow
 * The OAuth 1.0a three-legged flow (RFC 5849 §2) against the started service, driven by the npm
 * `oauth` client: temporary credentials, the user's approval on the sign-in page (form posts),
 * token credentials, then signed requests to the articles with the user's role and ownership.
 * And the refusals: reused, wrong or expired verifiers and temporary credentials, revoked tokens.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { OAuth } from 'oauth';
import { send } from '../helpers/service.js';
import { answerApproval, startOAuth1Service, verifierOf, type OAuth1TestService } from './oauth1-flow-helpers.js';

const CALLBACK = 'https://printer.example/ready?from=roa';
const HOUR = 3_600_000;

interface Credentials { token: string; secret: string }
interface Answer { status: number; body: string }

/** The npm `oauth` client's calls as promises. */
class Client {
  readonly oauth: OAuth;
  constructor(base: string, key: string, secret: string, callback: string, method: 'HMAC-SHA1' | 'PLAINTEXT' = 'HMAC-SHA1') {
    this.oauth = new OAuth(`${base}/oauth1/initiate`, `${base}/oauth1/token`, key, secret, '1.0', callback, method);
  }
  initiate(): Promise<Credentials & { confirmed: string }> {
    return new Promise((resolve, reject) => this.oauth.getOAuthRequestToken((err, token, secret, results) => {
      if (err) reject(Object.assign(new Error(`initiate: ${err.statusCode} ${err.data}`), err));
      else resolve({ token, secret, confirmed: (results as Record<string, string>).oauth_callback_confirmed! });
    }));
  }
  exchange(temporary: Credentials, verifier: string): Promise<Credentials> {
    return new Promise((resolve, reject) => this.oauth.getOAuthAccessToken(temporary.token, temporary.secret, verifier, (err, token, secret) => {
      if (err) reject(Object.assign(new Error(`token: ${err.statusCode} ${err.data}`), err));
      else resolve({ token, secret });
    }));
  }
  /** A signed request; the answer whatever its status. */
  request(method: 'GET' | 'PUT' | 'DELETE', url: string, c: Credentials, body?: string): Promise<Answer> {
    return new Promise((resolve) => {
      const done = (err: { statusCode: number; data?: string } | null, data?: string | Buffer, res?: { statusCode?: number }) => {
        resolve(err ? { status: err.statusCode, body: String(err.data ?? '') } : { status: res?.statusCode ?? 0, body: String(data ?? '') });
      };
      if (method === 'GET') this.oauth.get(url, c.token, c.secret, done);
      else if (method === 'DELETE') this.oauth.delete(url, c.token, c.secret, done);
      else this.oauth.put(url, c.token, c.secret, body!, 'application/json', done);
    });
  }
}

async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as { statusCode: number }).statusCode;
  }
}

describe('OAuth 1.0a three-legged flow with the npm oauth client', () => {
  let svc: OAuth1TestService;
  let client: Client;
  let oob: Client;

  before(async () => {
    // A wide timestamp window, so moving the endpoints' clock ages credentials without refusing timestamps.
    svc = await startOAuth1Service({ hmacClockSkewMs: 2 * HOUR });
    await svc.addUser('ann', 'editor', 'ann-password-1');
    await svc.addUser('rita', 'reader', 'rita-password-1');
    const secret = await svc.addConsumer('printer', { callbacks: [CALLBACK, 'oob'] });
    client = new Client(svc.base, 'printer', secret!, CALLBACK);
    oob = new Client(svc.base, 'printer', secret!, 'oob');
  });
  after(() => svc?.close());

  /** Temporary credentials approved by `user`, and the verifier. */
  async function approved(c: Client, user = 'ann', password = 'ann-password-1'): Promise<{ temporary: Credentials; verifier: string }> {
    const temporary = await c.initiate();
    return { temporary, verifier: verifierOf(await answerApproval(svc.base, temporary.token, user, password)) };
  }

  it('issues token credentials that act for the approving user, with their role and ownership', async () => {
    const temporary = await client.initiate();
    assert.equal(temporary.confirmed, 'true');
    const answer = await answerApproval(svc.base, temporary.token, 'ann', 'ann-password-1');
    assert.equal(answer.status, 303);
    const location = new URL(answer.headers.location!);
    assert.equal(location.origin + location.pathname, 'https://printer.example/ready');
    assert.equal(location.searchParams.get('from'), 'roa', 'the callback keeps its own query');
    assert.equal(location.searchParams.get('oauth_token'), temporary.token);
    assert.equal(answer.headers['cache-control'], 'no-store');
    const token = await client.exchange(temporary, verifierOf(answer));
    assert.notEqual(token.token, temporary.token);

    const put = await client.request('PUT', `${svc.base}/articles/oauth1-tea`, token, JSON.stringify({ title: 'Tea', price: { amount: '3.50', currency: 'eur' } }));
    assert.equal(put.status, 201, put.body);
    assert.equal((await svc.running.store.getArticleBySlug('oauth1-tea'))?.owner, 'ann');
    const get = await client.request('GET', `${svc.base}/articles`, token);
    assert.equal(get.status, 200, get.body);
  });

  it('a reader approving gets a reader: writes are refused (403)', async () => {
    const { temporary, verifier } = await approved(client, 'rita', 'rita-password-1');
    const token = await client.exchange(temporary, verifier);
    assert.equal((await client.request('GET', `${svc.base}/articles`, token)).status, 200);
    const put = await client.request('PUT', `${svc.base}/articles/rita-tea`, token, JSON.stringify({ title: 'Tea', price: { amount: '1.00', currency: 'eur' } }));
    assert.equal(put.status, 403, put.body);
  });

  it('out of band: the page shows the verifier, which the client exchanges', async () => {
    const temporary = await oob.initiate();
    const answer = await answerApproval(svc.base, temporary.token, 'ann', 'ann-password-1');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.location, undefined);
    const token = await oob.exchange(temporary, verifierOf(answer));
    assert.equal((await oob.request('GET', `${svc.base}/articles`, token)).status, 200);
  });

  it('temporary credentials and verifiers are single use', async () => {
    const { temporary, verifier } = await approved(client);
    await client.exchange(temporary, verifier);
    assert.equal(await statusOf(client.exchange(temporary, verifier)), 401, 'exchanged twice');
    const again = await answerApproval(svc.base, temporary.token, 'ann', 'ann-password-1').catch((e: Error) => e);
    assert.match(String(again), /approval page answered 400/, 'the approval page no longer knows them');
  });

  it('a wrong verifier is refused and burns the temporary credentials', async () => {
    const { temporary, verifier } = await approved(client);
    assert.equal(await statusOf(client.exchange(temporary, verifier + 'x')), 401);
    assert.equal(await statusOf(client.exchange(temporary, verifier)), 401, 'the right one no longer helps');
  });

  it('unapproved temporary credentials cannot be exchanged', async () => {
    const temporary = await client.initiate();
    assert.equal(await statusOf(client.exchange(temporary, 'guessed-verifier')), 401);
  });

  it('temporary credentials expire after 10 minutes: the page shows an error, never a redirect, and the token endpoint refuses', async () => {
    const temporary = await client.initiate();
    svc.clock.offsetMs = 10 * 60_000 + 1000;
    try {
      const page = await send(svc.base, 'GET', `/oauth1/authorize?oauth_token=${temporary.token}`);
      assert.equal(page.status, 400);
      assert.equal(page.headers.location, undefined);
      assert.match(page.text, /expired/);
    } finally {
      svc.clock.offsetMs = 0;
    }
    // Approved in time, exchanged too late.
    const { temporary: late, verifier } = await approved(client);
    svc.clock.offsetMs = 10 * 60_000 + 1000;
    try {
      assert.equal(await statusOf(client.exchange(late, verifier)), 401);
    } finally {
      svc.clock.offsetMs = 0;
    }
  });

  it('a denial goes back to the callback with oauth_problem=user_refused, and nothing can be exchanged', async () => {
    const temporary = await client.initiate();
    const answer = await answerApproval(svc.base, temporary.token, 'ann', 'ignored', 'deny');
    assert.equal(answer.status, 303);
    const location = new URL(answer.headers.location!);
    assert.equal(location.searchParams.get('oauth_problem'), 'user_refused');
    assert.equal(location.searchParams.get('oauth_verifier'), null);
    assert.equal(await statusOf(client.exchange(temporary, 'anything')), 401);
  });

  it('a wrong password shows the form again (403) and approves nothing', async () => {
    const temporary = await client.initiate();
    const answer = await answerApproval(svc.base, temporary.token, 'ann', 'wrong-password');
    assert.equal(answer.status, 403);
    assert.equal(answer.headers.location, undefined);
    assert.match(answer.text, /Wrong user name or password/);
    const retry = await answerApproval(svc.base, temporary.token, 'ann', 'ann-password-1');
    assert.equal(retry.status, 303, 'the same temporary credentials can still be approved');
  });

  it('revoked token credentials are refused (401): by the CLI\'s store call and by a password change', async () => {
    const first = await approved(client);
    const a = await client.exchange(first.temporary, first.verifier);
    const second = await approved(client);
    const b = await client.exchange(second.temporary, second.verifier);
    assert.equal((await client.request('GET', `${svc.base}/articles`, a)).status, 200);
    assert.ok((await svc.running.store.oauth1.revokeTokenCredentials({ clientId: 'printer', userName: 'ann' })) >= 2);
    const refused = await client.request('GET', `${svc.base}/articles`, a);
    assert.equal(refused.status, 401);

    const third = await approved(client, 'rita', 'rita-password-1');
    const c = await client.exchange(third.temporary, third.verifier);
    assert.equal((await client.request('GET', `${svc.base}/articles`, c)).status, 200);
    assert.ok((await svc.running.store.revokeUserTokens('rita')) >= 1);
    assert.equal((await client.request('GET', `${svc.base}/articles`, c)).status, 401);
    assert.equal((await client.request('GET', `${svc.base}/articles`, b)).status, 401);
  });

  it('initiate refuses a missing, unregistered or unusable callback (400) and an unknown client (401)', async () => {
    for (const callback of ['https://elsewhere.example/cb', 'javascript:alert(1)', 'not a uri']) {
      const c = new Client(svc.base, 'printer', 'irrelevant', callback);
      assert.equal(await statusOf(c.initiate()), 401, 'a wrong secret is refused before the callback is read');
    }
    const secret = await svc.addConsumer('open-printer');
    for (const callback of ['javascript:alert(1)', 'relative/path', 'https://x.example/cb#frag']) {
      assert.equal(await statusOf(new Client(svc.base, 'open-printer', secret!, callback).initiate()), 400, callback);
    }
    assert.equal(await statusOf(new Client(svc.base, 'other', (await svc.addConsumer('other'))!, 'https://elsewhere.example/cb').initiate()), 200, 'no callbacks registered: any');
    const registered = new Client(svc.base, 'printer', 'irrelevant', CALLBACK);
    (registered.oauth as unknown as { _consumerSecret: string })._consumerSecret = 'nope';
    assert.equal(await statusOf(registered.initiate()), 401);
    assert.equal(await statusOf(new Client(svc.base, 'nobody', 'x', CALLBACK).initiate()), 401);
  });

  it('refusals carry WWW-Authenticate: OAuth realm="roa"; the answers are never stored', async () => {
    const r = await send(svc.base, 'POST', '/oauth1/initiate', {
      headers: { Authorization: 'OAuth oauth_consumer_key="printer", oauth_signature_method="HMAC-SHA1", oauth_signature="x", oauth_timestamp="' + Math.floor(Date.now() / 1000) + '", oauth_nonce="n1", oauth_callback="oob"' },
    });
    assert.equal(r.status, 401);
    assert.match(r.headers['www-authenticate']!, /OAuth realm="roa"/);
    const options = await send(svc.base, 'OPTIONS', '/oauth1/token');
    assert.equal(options.headers.allow, 'POST, OPTIONS');
    assert.equal((await send(svc.base, 'GET', '/oauth1/token')).status, 405);
  });
});

describe('OAuth 1.0a flow through the embedded caching gateway', () => {
  let svc: OAuth1TestService;
  before(async () => {
    svc = await startOAuth1Service({ gatewayPort: 'ephemeral' });
    await svc.addUser('ann', 'editor', 'ann-password-1');
  });
  after(() => svc?.close());

  it('signs for the gateway\'s URL (the service rebuilds it from the forwarded host), and no cached answer outlives a revocation', async () => {
    const base = svc.gatewayBase!;
    const client = new Client(base, 'gw-printer', (await svc.addConsumer('gw-printer'))!, 'oob');
    const temporary = await client.initiate();
    const token = await client.exchange(temporary, verifierOf(await answerApproval(base, temporary.token, 'ann', 'ann-password-1')));
    assert.equal((await client.request('GET', `${base}/articles?page=1`, token)).status, 200);
    assert.equal((await client.request('GET', `${base}/articles?page=1`, token)).status, 200);
    await svc.running.store.oauth1.revokeTokenCredentials({ clientId: 'gw-printer' });
    assert.equal((await client.request('GET', `${base}/articles?page=1`, token)).status, 401);
  });
});
