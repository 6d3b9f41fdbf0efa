/**
 * @module auth/oauth-router
 * The OAuth 2.0 HTTP endpoints: token (RFC 6749), revocation (RFC 7009), introspection (RFC 7662),
 * authorization server metadata (RFC 8414), in JWT mode the JWK Set, and with sign-in pages the
 * authorization endpoint of the code flow (auth/oauth-authorize).
 */
import { HttpError, methodNotAllowed } from '../errors/http-error.js';
import { readRawBody } from '../http/body.js';
import { isUtf8Charset, parseContentType } from '../http/content-type.js';
import { publicOrigin } from '../http/public-origin.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { Router } from '../router/router.js';
import type { OAuthClient } from '../storage/store.js';
import { parseBasic } from './basic.js';
import type { ConsentPages } from './consent/consent-pages.js';
import { authorizeHandlers } from './oauth-authorize.js';
import { invalidRequest, OAuthError } from './oauth-errors.js';
import { OAuthTokenService, type ClientCredentials, type OAuthOptions } from './oauth-token.js';
import { sourceOf } from './source-address.js';

export type OAuthRouterOptions = OAuthOptions & {
  realm?: string;
  /** The sign-in and approval pages (auth/consent): with them, and a store keeping codes, `/oauth/authorize` is served. */
  consent?: ConsentPages;
};

const FORM_LIMIT = 16 * 1024;
// RFC 6749 §5.1 / §5.2: token responses and their errors must not be cached.
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** One endpoint this router serves, as the OpenAPI description (openapi/) names it. */
export interface OAuthEndpoint {
  path: string;
  method: 'GET' | 'POST';
  summary: string;
  /** Served only with JWT access tokens. */
  jwtOnly?: boolean;
  /** An HTML page for people (GET shows a form, POST takes it), not a JSON endpoint. */
  page?: boolean;
}

/** What `createOAuthRouter` mounts (HEAD with GET, OPTIONS on each); test/openapi checks the two agree. */
export const OAUTH_ENDPOINTS: readonly OAuthEndpoint[] = [
  { path: '/oauth/authorize', method: 'GET', page: true, summary: 'Authorization endpoint (RFC 6749 §4.1.1, PKCE S256 required): sign-in and approval page; its POST redirects to the registered redirect_uri with code, state and iss (RFC 9207)' },
  { path: '/oauth/token', method: 'POST', summary: 'Token endpoint (RFC 6749 §3.2): authorization_code (with PKCE), client_credentials, password and refresh_token grants' },
  { path: '/oauth/revoke', method: 'POST', summary: 'Token revocation (RFC 7009)' },
  { path: '/oauth/introspect', method: 'POST', summary: 'Token introspection (RFC 7662)' },
  { path: '/.well-known/oauth-authorization-server', method: 'GET', summary: 'Authorization server metadata (RFC 8414)' },
  { path: '/oauth/jwks.json', method: 'GET', summary: 'JWK Set of the access-token signing key (RFC 7517)', jwtOnly: true },
];

/**
 * The OAuth endpoints as a roa Router, to mount at the root: `app.use(createOAuthRouter({ store, issuer }))`.
 * @example
 *   const oauth = createOAuthRouter({ store, issuer: 'https://api.example', passwordGrant: false });
 *   app.use(oauth);
 */
export function createOAuthRouter(options: OAuthRouterOptions | OAuthTokenService): Router {
  const service = options instanceof OAuthTokenService ? options : new OAuthTokenService({ authorizationCode: options.consent !== undefined, ...options });
  const realm = options instanceof OAuthTokenService ? 'roa' : options.realm ?? 'roa';
  const consent = options instanceof OAuthTokenService ? undefined : options.consent;
  const authorize = consent !== undefined && service.codeFlow;
  const h = oauthHandlers(service, realm, authorize);
  const router = Router();
  const oauth2 = options instanceof OAuthTokenService ? undefined : options.store.oauth2;
  if (authorize && oauth2 !== undefined) {
    const store = (options as OAuthRouterOptions).store;
    const a = authorizeHandlers({ service, store: { getClient: (id) => store.getClient(id), oauth2 }, pages: consent, issuer: (req) => issuerFor(service, req) });
    router.get('/oauth/authorize', a.get);
    router.post('/oauth/authorize', a.post);
  }
  router.post('/oauth/token', h.token);
  router.post('/oauth/revoke', h.revoke);
  router.post('/oauth/introspect', h.introspect);
  router.get('/.well-known/oauth-authorization-server', h.metadata);
  if (service.jwt !== undefined) router.get('/oauth/jwks.json', h.jwks);
  // OPTIONS answers with Allow (RFC 9110 §9.3.7); any other method: 405 with Allow (§15.5.6), not a 404 further on.
  const allowed: Array<[string, string]> = [
    ...(authorize ? [['/oauth/authorize', 'GET, HEAD, POST, OPTIONS'] as [string, string]] : []),
    ['/oauth/token', 'POST, OPTIONS'],
    ['/oauth/revoke', 'POST, OPTIONS'],
    ['/oauth/introspect', 'POST, OPTIONS'],
    ['/.well-known/oauth-authorization-server', 'GET, HEAD, OPTIONS'],
  ];
  if (service.jwt !== undefined) allowed.push(['/oauth/jwks.json', 'GET, HEAD, OPTIONS']);
  for (const [path, allow] of allowed) {
    router.options(path, allowOnly(allow));
    router.all(path, onlyMethods(allow));
  }
  return router;
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** An OPTIONS handler: 204 with `allow`. */
function allowOnly(allow: string): (req: Request, res: Response) => void {
  return (_req, res) => {
    res.status(204).set('Allow', allow).end();
  };
}

/** A handler refusing every method it reaches with 405 and `allow`. */
function onlyMethods(allow: string): (req: Request) => void {
  return (req) => {
    throw methodNotAllowed(req.method, allow);
  };
}

/** The endpoint handlers as plain `(req, res)` functions (what the router mounts). */
export function oauthHandlers(service: OAuthTokenService, realm = 'roa', authorize = false): Record<'token' | 'revoke' | 'introspect' | 'metadata' | 'jwks', Handler> {
  const endpoint = (fn: (params: URLSearchParams, client: OAuthClient, res: Response, source: string, issuer: string) => Promise<void>): Handler => {
    return async (req, res) => {
      let usedBasic = req.headers.authorization !== undefined;
      try {
        const params = await readForm(req);
        const creds = clientCredentials(req, params);
        usedBasic = creds.method === 'client_secret_basic';
        const source = sourceOf(req);
        const client = await service.authenticateClient(creds, source);
        await fn(params, client, res, source, issuerFor(service, req));
      } catch (err) {
        sendError(res, err, usedBasic, realm);
      }
    };
  };
  return {
    token: endpoint(async (params, client, res, source, issuer) => {
      const body = await service.token(params, client, source, issuer);
      res.status(200).set(NO_STORE).json(body);
    }),
    revoke: endpoint(async (params, client, res) => {
      await service.revoke(params, client);
      res.status(200).set(NO_STORE).end();
    }),
    introspect: endpoint(async (params, client, res, _source, issuer) => {
      res.status(200).set(NO_STORE).json(await service.introspect(params, client, issuer));
    }),
    metadata: async (req, res) => {
      // A document naming the request's own origin must not be served by a shared cache (the
      // gateway keys by path) to clients that reached another origin: only their own caches keep it.
      const cacheControl = service.issuer === undefined ? 'private, max-age=300' : 'max-age=300';
      res.status(200).set('Cache-Control', cacheControl).json(metadata(service, issuerFor(service, req), { authorize }));
    },
    jwks: async (_req, res) => {
      if (service.jwt === undefined) throw new HttpError(404);
      res.status(200).set('Cache-Control', 'max-age=300').type('application/jwk-set+json').json(service.jwt.jwks());
    },
  };
}

/**
 * The issuer a request deals with: the configured one, else the public origin the client reached
 * (its protocol and host as trusted proxies state them), so metadata fetched through an HTTPS
 * gateway names the gateway, and fetched directly names the service.
 */
export function issuerFor(service: OAuthTokenService, req: Request): string {
  return service.issuer ?? publicOrigin(req);
}

/** RFC 8414 §2 metadata for `issuer` (default the service's fixed one); `authorize`: /oauth/authorize is served. */
export function metadata(service: OAuthTokenService, issuer: string | undefined = service.issuer, o: { authorize?: boolean } = {}): Record<string, unknown> {
  if (issuer === undefined) throw new Error('OAuth metadata: no issuer configured; pass the request\'s (issuerFor)');
  const at = (path: string) => new URL(path, issuer).href;
  const auth = ['client_secret_basic', 'client_secret_post'];
  const code = service.codeFlow && o.authorize === true;
  return {
    issuer,
    ...(code ? { authorization_endpoint: at('/oauth/authorize') } : {}),
    token_endpoint: at('/oauth/token'),
    revocation_endpoint: at('/oauth/revoke'),
    introspection_endpoint: at('/oauth/introspect'),
    ...(service.jwt !== undefined ? { jwks_uri: at('/oauth/jwks.json') } : {}),
    grant_types_supported: service.grantTypes(),
    // Without an authorization endpoint, no response types (RFC 8414 §2 lists the member as required).
    response_types_supported: code ? ['code'] : [],
    ...(code ? { code_challenge_methods_supported: ['S256'], authorization_response_iss_parameter_supported: true } : {}),
    scopes_supported: [...service.scopesSupported],
    // `none`: public clients name themselves with client_id alone (RFC 6749 §2.1, RFC 7591 §2).
    token_endpoint_auth_methods_supported: service.codeFlow ? [...auth, 'none'] : auth,
    revocation_endpoint_auth_methods_supported: auth,
    introspection_endpoint_auth_methods_supported: auth,
  };
}

/** The form body (RFC 6749 §3.2: application/x-www-form-urlencoded, no repeated parameters). */
async function readForm(req: Request): Promise<URLSearchParams> {
  const contentType = req.headers['content-type'] ?? '';
  const parsed = parseContentType(contentType);
  if (parsed === undefined && contentType !== '') throw invalidRequest('Malformed Content-Type');
  if (parsed?.type !== 'application/x-www-form-urlencoded') throw invalidRequest('The body must be application/x-www-form-urlencoded');
  // RFC 6749 Appendix B: the form is UTF-8; a body declared in another charset would be misread.
  const charset = parsed.parameters.charset;
  if (!isUtf8Charset(charset)) throw invalidRequest(`The form must be UTF-8, not ${charset!.toLowerCase()}`);
  let raw: Buffer;
  try {
    raw = await readRawBody(req, { limit: FORM_LIMIT });
  } catch (err) {
    if (err instanceof HttpError && err.status < 500) throw invalidRequest(err.message);
    throw err;
  }
  const params = new URLSearchParams(raw.toString('utf8'));
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (seen.has(key)) throw invalidRequest(`Parameter "${key}" is repeated`);
    seen.add(key);
  }
  return params;
}

/** RFC 6749 §2.3.1: HTTP Basic or client_id/client_secret in the body, never both. */
function clientCredentials(req: Request, params: URLSearchParams): ClientCredentials {
  const header = req.headers.authorization;
  const inBody = params.has('client_secret');
  if (header !== undefined) {
    if (inBody) throw invalidRequest('Use one client authentication method, not both');
    let basic;
    try {
      basic = parseBasic(header);
    } catch {
      throw new OAuthError('invalid_client', 'Malformed Basic client credentials', 401);
    }
    if (basic === undefined) throw new OAuthError('invalid_client', 'Client authentication must use HTTP Basic', 401);
    // RFC 6749 §2.3.1: client_id and secret are form-urlencoded before Basic encoding.
    const clientId = formDecode(basic.userId);
    const clientSecret = formDecode(basic.password);
    const bodyId = params.get('client_id');
    if (bodyId !== null && bodyId !== clientId) throw invalidRequest('client_id does not match the authenticated client');
    return { clientId, clientSecret, method: 'client_secret_basic' };
  }
  const clientId = params.get('client_id');
  const clientSecret = params.get('client_secret');
  // A public client (RFC 6749 §2.1) has no secret: client_id alone, which only a public client may use.
  if (clientId !== null && clientId !== '' && clientSecret === null) return { clientId, clientSecret: '', method: 'none' };
  if (clientId === null || clientSecret === null) {
    // No credentials at all: 401 with the challenge tells the client how to authenticate (RFC 9110 §15.5.2).
    throw new OAuthError('invalid_client', 'Client authentication required', 401, { 'WWW-Authenticate': 'Basic' });
  }
  return { clientId, clientSecret, method: 'client_secret_post' };
}

function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new OAuthError('invalid_client', 'Malformed Basic client credentials', 401);
  }
}

function sendError(res: Response, err: unknown, usedBasic: boolean, realm: string): void {
  if (!(err instanceof OAuthError)) {
    const status = err instanceof HttpError ? err.status : 500;
    const error = status === 503 ? 'temporarily_unavailable' : status >= 500 ? 'server_error' : 'invalid_request';
    const description = status >= 500 ? 'The server could not handle the request' : (err as Error).message;
    res.status(status).set(NO_STORE).json({ error, error_description: description });
    return;
  }
  const headers: Record<string, string> = { ...NO_STORE, ...err.headers };
  let status = err.status;
  if (err.error === 'invalid_client' && status === 401) {
    // RFC 6749 §5.2: 401 with a challenge when the client tried Basic; a failed body authentication is a 400.
    if (usedBasic || headers['WWW-Authenticate'] !== undefined) headers['WWW-Authenticate'] = `Basic realm="${realm}"`;
    else status = 400;
  }
  res.status(status).set(headers).json({ error: err.error, error_description: err.description });
}
