/**
 * @module test/auth/oauth1-flow-helpers
 * A real service for the OAuth 1.0a flow tests: a known server key (so consumers can be sealed as
 * `roa client add --oauth1` seals them), a movable clock, and the user's sign-in on the approval
 * page done over HTTP form posts, as a browser without JavaScript would.
 */
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/auth/secret-box.js';
import { sealConsumerSecret } from '../../src/auth/oauth1/store-credentials.js';
import type { ServiceOptions } from '../../src/service.js';
import { send, startTestService, type SimpleResponse, type TestService } from '../helpers/service.js';

export interface OAuth1TestService extends TestService {
  /** The clock the OAuth 1 endpoints read; move `clock.offsetMs` to age credentials. */
  clock: { offsetMs: number };
  addConsumer(clientId: string, opts?: { secret?: string | null; rsaPublicKey?: string; callbacks?: string[]; userName?: string }): Promise<string | null>;
}

export async function startOAuth1Service(opts: ServiceOptions = {}): Promise<OAuth1TestService> {
  const serverKey = randomBytes(32);
  const clock = { offsetMs: 0 };
  const svc = await startTestService({ serverKey, oauth1Clock: () => Date.now() + clock.offsetMs, ...opts });
  const box = new SecretBox(serverKey);
  return {
    ...svc,
    clock,
    async addConsumer(clientId, o = {}) {
      const secret = o.secret === undefined ? randomBytes(24).toString('base64url') : o.secret;
      await svc.running.store.oauth1.createConsumer({
        clientId,
        sealedSecret: secret === null ? null : sealConsumerSecret(box, clientId, secret),
        rsaPublicKey: o.rsaPublicKey ?? null,
        callbacks: o.callbacks ?? [],
        userName: o.userName ?? null,
      });
      return secret;
    },
  };
}

/** The hidden `flow` field of an approval page. */
export function flowOf(html: string): string {
  const m = /name="flow" value="([^"]*)"/.exec(html);
  if (m === null) throw new Error(`no flow field in the page: ${html.slice(0, 300)}`);
  return m[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

/**
 * Opens the approval page for `token` and posts the decision back with the user's password.
 * Returns the POST's answer (303 to the callback, or the verifier page for `oob`).
 */
export async function answerApproval(base: string, token: string, user: string, password: string, decision: 'approve' | 'deny' = 'approve'): Promise<SimpleResponse> {
  const path = `/oauth1/authorize?oauth_token=${encodeURIComponent(token)}`;
  const page = await send(base, 'GET', path);
  if (page.status !== 200) throw new Error(`approval page answered ${page.status}: ${page.text.slice(0, 300)}`);
  const body = new URLSearchParams({ flow: flowOf(page.text), username: user, password, decision }).toString();
  return send(base, 'POST', path, { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
}

/** The verifier an approval handed back: from the 303's Location, or from the `oob` page. */
export function verifierOf(answer: SimpleResponse): string {
  if (answer.status === 303) {
    const v = new URL(answer.headers.location!).searchParams.get('oauth_verifier');
    if (v === null) throw new Error(`no verifier in ${answer.headers.location}`);
    return v;
  }
  const m = /<code id="code">([^<]*)<\/code>/.exec(answer.text);
  if (answer.status !== 200 || m === null) throw new Error(`approval answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return m[1]!;
}
