/**
 * @module auth/oauth1-flow/oauth1-router
 * The OAuth 1.0a provider's endpoints (RFC 5849 §2): `POST /oauth1/initiate` (temporary
 * credentials), `GET|POST /oauth1/authorize` (the user signs in and approves, on the shared consent
 * pages) and `POST /oauth1/token` (token credentials). The signed endpoints verify with auth/oauth1;
 * their refusals are problem documents (400 malformed, 401 with `WWW-Authenticate: OAuth realm="roa"`).
 */
import { HttpError, methodNotAllowed } from '../../errors/http-error.js';
import type { Request } from '../../http/request.js';
import type { Response } from '../../http/response.js';
import { Router } from '../../router/router.js';
import type { Store } from '../../storage/store.js';
import { ConsentPages, renderCodePage, sendPage, type PageView } from '../consent/index.js';
import { FormError, parseStrictForm, queryOf } from '../consent/strict-form.js';
import { invalidCredentials } from '../errors.js';
import type { NonceStore } from '../nonce-store.js';
import type { OAuth1Credentials } from '../oauth1/credentials.js';
import { oauthEncode } from '../oauth1/percent-encoding.js';
import { storeCredentials } from '../oauth1/store-credentials.js';
import { verifyOAuth1Request, type VerifyOAuth1Options } from '../oauth1/verify.js';
import type { SecretBox } from '../secret-box.js';
import { callbackRefusal, callbackWith, OUT_OF_BAND } from './oauth1-callback.js';
import { OAuth1Provider } from './oauth1-provider.js';

/** One endpoint, as the OpenAPI description (openapi/) names it. */
export interface OAuth1Endpoint {
  path: string;
  methods: ReadonlyArray<'GET' | 'POST'>;
  summary: string;
}

/** What `createOAuth1Router` mounts (HEAD with GET, OPTIONS on each); test/openapi checks the two agree. */
export const OAUTH1_ENDPOINTS: readonly OAuth1Endpoint[] = [
  { path: '/oauth1/initiate', methods: ['POST'], summary: 'OAuth 1.0a temporary credentials (RFC 5849 §2.1), signed with the client credentials' },
  { path: '/oauth1/authorize', methods: ['GET', 'POST'], summary: 'OAuth 1.0a resource owner authorization (RFC 5849 §2.2): the sign-in and approval page' },
  { path: '/oauth1/token', methods: ['POST'], summary: 'OAuth 1.0a token credentials (RFC 5849 §2.3), signed with the temporary credentials, with oauth_verifier' },
];

/** The purpose the approval form's flow is sealed for. */
const PURPOSE = 'oauth1-authorize';
const FORM = 'application/x-www-form-urlencoded';
// RFC 5849 §2.1 / §2.3: the answers carry secrets; no cache may keep them.
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export interface OAuth1RouterOptions {
  store: Pick<Store, 'oauth1' | 'getUser'>;
  /** Seals token secrets (the server key's box). */
  box: SecretBox;
  /** The shared sign-in and approval pages (auth/consent). */
  pages: ConsentPages;
  /** Where nonces are recorded (the one the resource scheme uses). */
  nonces: NonceStore;
  /** Consumer lookups; default `storeCredentials(store.oauth1, box)`. */
  credentials?: OAuth1Credentials;
  /** Life of temporary credentials and verifiers, ms (default and at most 10 minutes). */
  temporaryTtlMs?: number;
  /** Unexpired temporary credentials per client (default 1000); past it, 429. */
  maxLiveTemporary?: number;
  clockSkewMs?: number;
  production?: boolean;
  realm?: string;
  /** Clock (ms epoch) of expiries and timestamps; tests move it. */
  now?: () => number;
}

/**
 * The OAuth 1.0a endpoints as a roa Router, to mount at the root before any body parser (they read
 * their own form).
 * @example
 *   app.use(createOAuth1Router({ store, box, pages, nonces }));
 */
export function createOAuth1Router(options: OAuth1RouterOptions): Router {
  const now = options.now ?? Date.now;
  const provider = new OAuth1Provider({ store: options.store, box: options.box, temporaryTtlMs: options.temporaryTtlMs, maxLiveTemporary: options.maxLiveTemporary, now });
  const credentials = options.credentials ?? storeCredentials(options.store.oauth1, options.box, { now });
  const challenge = `OAuth realm="${options.realm ?? 'roa'}"`;
  const verifyOptions: VerifyOAuth1Options<never> = {
    consumers: (key) => credentials.getConsumer(key),
    nonces: options.nonces,
    now,
    challenge,
    ...(options.clockSkewMs !== undefined ? { clockSkewMs: options.clockSkewMs } : {}),
    ...(options.production !== undefined ? { production: options.production } : {}),
  };
  const pages = options.pages;

  const router = Router();
  router.post('/oauth1/initiate', async (req: Request, res: Response) => {
    const verified = await verifyOAuth1Request(req, verifyOptions);
    const callback = verified.protocol.get('oauth_callback');
    if (callback === undefined || callback === '') throw refused(400, 'parameter_absent', 'oauth_callback is required: an absolute URI or "oob" (RFC 5849 §2.1)');
    const refusal = callbackRefusal(callback, verified.consumer.callbacks);
    if (refusal !== undefined) throw refused(400, 'parameter_rejected', refusal);
    const issued = await provider.issueTemporary(verified.consumer.key, callback);
    sendForm(res, { oauth_token: issued.token, oauth_token_secret: issued.secret, oauth_callback_confirmed: 'true' });
  });

  router.post('/oauth1/token', async (req: Request, res: Response) => {
    const verified = await verifyOAuth1Request(req, { ...verifyOptions, tokens: (token) => provider.getTemporaryToken(token), requireToken: true });
    const verifier = verified.protocol.get('oauth_verifier');
    if (verifier === undefined || verifier === '') throw refused(400, 'parameter_absent', 'oauth_verifier is required (RFC 5849 §2.3)');
    const issued = await provider.exchange(verified.protocol.get('oauth_token')!, verifier);
    // The temporary credentials are used up either way: a wrong verifier cannot be tried again.
    if (issued === undefined) throw invalidCredentials(challenge, { oauthProblem: 'verifier_invalid' }, 'The verifier does not match these temporary credentials, or they were not approved');
    sendForm(res, { oauth_token: issued.token, oauth_token_secret: issued.secret });
  });

  router.get('/oauth1/authorize', async (req: Request, res: Response) => {
    const token = authorizeToken(req, res, pages);
    if (token === undefined) return;
    const pending = await provider.pending(token);
    if (pending === undefined) return unknownToken(res, pages);
    pages.show(req, res, PURPOSE, { oauth_token: token, client: pending.clientId, callback: pending.callback }, view(pending.clientId, pending.callback));
  });

  router.post('/oauth1/authorize', async (req: Request, res: Response) => {
    const answer = await pages.receive(req, res, PURPOSE, (flow) => view(flow.client!, flow.callback!));
    if (answer === undefined) return;
    const token = answer.flow.oauth_token!;
    const callback = answer.flow.callback!;
    if (answer.decision === 'deny') {
      if (!(await provider.deny(token))) return unknownToken(res, pages);
      if (callback === OUT_OF_BAND) return pages.error(res, 200, 'Access denied', `You did not let ${answer.flow.client!} act for you.`);
      // OAuth Problem Reporting: the client learns the user said no, instead of waiting for ever.
      return redirect(res, callbackWith(callback, { oauth_token: token, oauth_problem: 'user_refused' }));
    }
    const verifier = await provider.approve(token, answer.user.name);
    if (verifier === undefined) return unknownToken(res, pages);
    if (callback === OUT_OF_BAND) {
      // §2.2: no callback, so the user carries the verifier to the client by hand.
      return sendPage(res, 200, renderCodePage('Access approved', `Enter this verification code in ${answer.flow.client!}:`, verifier));
    }
    redirect(res, callbackWith(callback, { oauth_token: token, oauth_verifier: verifier }));
  });

  const allowed: Array<[string, string]> = [
    ['/oauth1/initiate', 'POST, OPTIONS'],
    ['/oauth1/authorize', 'GET, HEAD, POST, OPTIONS'],
    ['/oauth1/token', 'POST, OPTIONS'],
  ];
  for (const [path, allow] of allowed) {
    router.options(path, (_req: Request, res: Response) => {
      res.status(204).set('Allow', allow).end();
    });
    router.all(path, (req: Request) => {
      throw methodNotAllowed(req.method, allow);
    });
  }
  return router;
}

/** What the approval page shows: who asks, and where the answer goes. */
function view(clientId: string, callback: string): PageView {
  const away = callback !== OUT_OF_BAND;
  return {
    title: 'Sign in to approve an application',
    client: clientId,
    permissions: ['read and write articles as you, with your role'],
    ...(away ? { returnTo: callback, formTargets: [callback] } : {}),
  };
}

/** `oauth_token` of the authorize URL, or undefined after answering with an error page. */
function authorizeToken(req: Request, res: Response, pages: ConsentPages): string | undefined {
  let query: Map<string, string>;
  try {
    query = parseStrictForm(queryOf(req.originalUrl || req.url || ''));
  } catch (err) {
    if (!(err instanceof FormError)) throw err;
    pages.error(res, 400, 'Malformed request', err.message);
    return undefined;
  }
  const token = query.get('oauth_token');
  if (token === undefined || token === '') {
    pages.error(res, 400, 'Malformed request', 'The address lacks oauth_token: go back to the application and start again.');
    return undefined;
  }
  return token;
}

/** Never a redirect: the callback of unknown credentials is no one's to trust (RFC 5849 §4.7). */
function unknownToken(res: Response, pages: ConsentPages): void {
  pages.error(res, 400, 'This request has expired', 'The application\'s request is unknown, expired or already answered. Go back to the application and start again.');
}

function redirect(res: Response, location: string): void {
  res.status(303).set({ Location: location, ...NO_STORE, 'Referrer-Policy': 'no-referrer' }).end();
}

/** §2.1 / §2.3: the answer is form-encoded, its values percent-encoded as §3.6 says. */
function sendForm(res: Response, fields: Record<string, string>): void {
  const body = Object.entries(fields).map(([k, v]) => `${oauthEncode(k)}=${oauthEncode(v)}`).join('&');
  res.status(200).set({ 'Content-Type': FORM, ...NO_STORE }).send(body);
}

function refused(status: 400, oauthProblem: string, message: string): HttpError {
  return new HttpError(status, message, { code: 'ROA_ERR_MALFORMED_CREDENTIALS', extensions: { oauthProblem } });
}
