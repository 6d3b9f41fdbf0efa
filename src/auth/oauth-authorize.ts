/**
 * @module auth/oauth-authorize
 * The authorization endpoint of the code flow (RFC 6749 §4.1.1, RFC 7636, RFC 9207, RFC 9700):
 * `GET /oauth/authorize` checks the request and shows the sign-in and approval page (auth/consent);
 * its POST takes the answer and sends the browser to the client's registered redirect URI with a
 * code or an error. Until the client and its redirect URI are known good, errors are shown on a
 * page and never redirected (§4.1.2.1), so the endpoint cannot be used as an open redirector.
 */
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { OAuthClient, Store } from '../storage/store.js';
import type { ConsentPages, PageView } from './consent/consent-pages.js';
import type { FlowValues } from './consent/flow-seal.js';
import { FormError, parseStrictForm, queryOf } from './consent/strict-form.js';
import { OAuthError } from './oauth-errors.js';
import type { OAuthTokenService } from './oauth-token.js';
import { isS256Challenge } from './pkce.js';
import { MAX_REDIRECT_URI_LENGTH, redirectUriMatches } from './redirect-uris.js';
import { parseScope } from './scopes.js';

/** What the flow seal is bound to: a form sealed for another page is refused here. */
export const AUTHORIZE_PURPOSE = 'oauth2-authorize';

/** Longest accepted value per parameter; a longer one is refused on a page (nothing is echoed or stored). */
export const AUTHORIZE_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  response_type: 64, client_id: 128, redirect_uri: MAX_REDIRECT_URI_LENGTH, scope: 1024, state: 2048,
  code_challenge: 128, code_challenge_method: 16,
});
/** Longest accepted query (all parameters, known or not). */
export const MAX_AUTHORIZE_QUERY = 8 * 1024;

export type AuthorizeStore = Pick<Store, 'getClient' | 'oauth2'>;

type Checked =
  | { kind: 'page'; status: number; title: string; message: string }
  | { kind: 'redirect'; redirectUri: string; params: Array<[string, string]> }
  | { kind: 'consent'; client: OAuthClient; flow: FlowValues };

/**
 * The endpoint's GET and POST handlers.
 * @example
 *   const h = authorizeHandlers({ service, store, pages, issuer: (req) => issuerFor(service, req) });
 *   router.get('/oauth/authorize', h.get);
 *   router.post('/oauth/authorize', h.post);
 */
export function authorizeHandlers(o: { service: OAuthTokenService; store: AuthorizeStore; pages: ConsentPages; issuer: (req: Request) => string }) {
  const redirect = (res: Response, redirectUri: string, params: Array<[string, string]>, req: Request): void => {
    // RFC 9207 §2: every authorization response, errors too, names the issuer.
    res.status(303).set({ Location: withQuery(redirectUri, [...params, ['iss', o.issuer(req)]]), 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).end();
  };
  return {
    async get(req: Request, res: Response): Promise<void> {
      if (plainHttpInProduction(req)) return tlsPage(o.pages, res);
      const checked = await checkRequest(req, o.store);
      if (checked.kind === 'page') return o.pages.error(res, checked.status, checked.title, checked.message);
      if (checked.kind === 'redirect') return redirect(res, checked.redirectUri, checked.params, req);
      o.pages.show(req, res, AUTHORIZE_PURPOSE, checked.flow, viewOf(checked.flow));
    },

    async post(req: Request, res: Response): Promise<void> {
      if (plainHttpInProduction(req)) return tlsPage(o.pages, res);
      const answer = await o.pages.receive(req, res, AUTHORIZE_PURPOSE, viewOf);
      if (answer === undefined) return;
      const flow = answer.flow;
      // The client may have been removed, or its redirect URI withdrawn, while the page was open.
      const client = await o.store.getClient(flow.client_id!);
      const registered = client === undefined ? [] : await o.store.oauth2!.redirectUris(client.clientId);
      if (client === undefined || !redirectUriMatches(flow.redirect_uri!, registered)) {
        return o.pages.error(res, 400, 'Unknown application', 'The application is no longer registered for this redirect URI.');
      }
      const state: Array<[string, string]> = flow.state !== undefined ? [['state', flow.state]] : [];
      if (answer.decision === 'deny') {
        return redirect(res, flow.redirect_uri!, [['error', 'access_denied'], ['error_description', 'The user denied the request'], ...state], req);
      }
      let code: string;
      try {
        ({ code } = await o.service.issueCode({ client, user: answer.user, redirectUri: flow.redirect_uri!, scopes: splitScope(flow.scope!), codeChallenge: flow.code_challenge! }));
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        return o.pages.error(res, 409, 'Please sign in again', 'Your account changed while you approved; start again from the application.');
      }
      redirect(res, flow.redirect_uri!, [['code', code], ...state], req);
    },
  };
}

/** The page's view of a flow: who asks, for what, and where the answer goes. */
function viewOf(flow: FlowValues): PageView {
  return { client: flow.client_id!, permissions: splitScope(flow.scope!), returnTo: flow.redirect_uri!, formTargets: [flow.redirect_uri!] };
}

/** The authorization request checked in RFC 6749 §4.1.2.1's order: first what makes a redirect safe, then the rest. */
async function checkRequest(req: Request, store: AuthorizeStore): Promise<Checked> {
  const page = (status: number, title: string, message: string): Checked => ({ kind: 'page', status, title, message });
  const query = queryOf(req.originalUrl || req.url || '');
  if (query.length > MAX_AUTHORIZE_QUERY) return page(414, 'Request too long', `The authorization request is longer than ${MAX_AUTHORIZE_QUERY} characters.`);
  let p: Map<string, string>;
  try {
    p = parseStrictForm(query);
  } catch (err) {
    if (err instanceof FormError) return page(400, 'Malformed request', err.message);
    throw err;
  }
  for (const [name, max] of Object.entries(AUTHORIZE_LIMITS)) {
    if ((p.get(name)?.length ?? 0) > max) return page(400, 'Malformed request', `${name} is longer than ${max} characters.`);
  }
  const clientId = p.get('client_id');
  const redirectUri = p.get('redirect_uri');
  if (clientId === undefined || clientId === '') return page(400, 'Malformed request', 'client_id is required.');
  const client = await store.getClient(clientId);
  if (client === undefined || store.oauth2 === undefined) return page(400, 'Unknown application', 'No application is registered under this client_id.');
  if (redirectUri === undefined || redirectUri === '') return page(400, 'Malformed request', 'redirect_uri is required.');
  if (!redirectUriMatches(redirectUri, await store.oauth2.redirectUris(clientId))) {
    return page(400, 'Unknown redirect URI', 'This redirect_uri is not registered for the application, so the answer cannot be sent there.');
  }
  // From here on the redirect URI is the client's own: errors go back to it (§4.1.2.1).
  const given = p.get('state');
  // RFC 6749 Appendix A.5: state is visible ASCII and space (VSCHAR); anything else is not echoed.
  const state = given !== undefined && /^[\x20-\x7e]*$/.test(given) ? given : undefined;
  const fail = (error: string, description: string): Checked => ({
    kind: 'redirect', redirectUri, params: [['error', error], ['error_description', description], ...(state !== undefined ? [['state', state] as [string, string]] : [])],
  });
  if (given !== undefined && state === undefined) return fail('invalid_request', 'state must be visible ASCII characters or spaces (RFC 6749 Appendix A.5)');
  const responseType = p.get('response_type');
  if (responseType === undefined || responseType === '') return fail('invalid_request', 'response_type is required');
  if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');
  const challenge = p.get('code_challenge');
  const method = p.get('code_challenge_method');
  // RFC 7636 §4.3 makes `plain` the default method; roa takes S256 only (RFC 9700 §2.1.1).
  if (challenge === undefined || challenge === '') return fail('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (!isS256Challenge(challenge)) return fail('invalid_request', 'code_challenge must be 43 base64url characters (S256)');
  const rawScope = p.get('scope');
  const requested = rawScope === undefined ? [...client.scopes] : parseScope(rawScope);
  if (requested === undefined || requested.length === 0) return fail('invalid_scope', 'Malformed scope');
  const extra = requested.filter((s) => !client.scopes.includes(s));
  if (extra.length > 0) return fail('invalid_scope', `Scope not allowed for this client: ${extra.join(' ')}`);
  const flow: FlowValues = { client_id: clientId, redirect_uri: redirectUri, scope: requested.join(' '), code_challenge: challenge };
  if (state !== undefined) flow.state = state;
  return { kind: 'consent', client, flow };
}

function splitScope(scope: string): string[] {
  return scope === '' ? [] : scope.split(' ');
}

/**
 * `uri` with `params` appended to its query, the query it has kept as it is (RFC 6749 §3.1.2:
 * "MUST retain the query component"); registered URIs have no fragment.
 */
export function withQuery(uri: string, params: ReadonlyArray<readonly [string, string]>): string {
  const encoded = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const q = uri.indexOf('?');
  if (q < 0) return `${uri}?${encoded}`;
  return q === uri.length - 1 || uri.endsWith('&') ? uri + encoded : `${uri}&${encoded}`;
}

/** Production's TLS rule (middleware/credentials-over-tls) for a page that asks for a password. */
function plainHttpInProduction(req: Request): boolean {
  return req.app?.get('env') === 'production' && !req.secure;
}

function tlsPage(pages: ConsentPages, res: Response): void {
  pages.error(res, 403, 'Use https', 'Passwords are only taken over https: open this page with an https:// URL.');
}
