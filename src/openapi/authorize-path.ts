/**
 * @module openapi/authorize-path
 * The OpenAPI path item of the OAuth 2.0 authorization endpoint (auth/oauth-authorize): a page for
 * people, not JSON: GET shows the sign-in and approval form, POST takes it and redirects.
 */

type Json = Record<string, unknown>;

const HTML = 'text/html';
const page = (description: string): Json => ({ description, content: { [HTML]: {} } });
const query = (name: string, description: string, required = true, schema: Json = { type: 'string' }): Json => ({ name, in: 'query', required, description, schema });

/** GET, HEAD, POST and OPTIONS of `/oauth/authorize`. */
export function authorizePathItem(path: string, summary: string): Json {
  const parameters = [
    query('response_type', 'Always `code`', true, { enum: ['code'] }),
    query('client_id', 'The registered client'),
    query('redirect_uri', 'One of the client\'s registered redirect URIs, exactly (a loopback IP redirect may name any port, RFC 8252 §7.3)'),
    query('state', 'Echoed unchanged in the redirect', false),
    query('scope', 'Space-separated; default every scope the client is registered for', false),
    query('code_challenge', 'PKCE: BASE64URL(SHA-256(code_verifier)), 43 characters (RFC 7636)'),
    query('code_challenge_method', 'Only `S256`', true, { enum: ['S256'] }),
  ];
  const redirect = { description: 'To the redirect URI with `code`, `state` and `iss` (RFC 9207), or with `error` (invalid_request, unsupported_response_type, invalid_scope, access_denied), `state` and `iss`' };
  const get = (m: string): Json => ({
    operationId: `${m}OauthAuthorize`, summary, tags: ['oauth'], security: [{}], parameters,
    responses: {
      200: page('The sign-in and approval form (no framing, no referrer, never stored)'),
      303: redirect,
      400: page('Unknown client, unregistered redirect URI or malformed request: an error page, never a redirect'),
      403: page('Over plain HTTP in production'),
      414: page('The request is too long'),
    },
  });
  return {
    get: get('get'),
    head: get('head'),
    post: {
      operationId: 'postOauthAuthorize', summary: 'Sign in and approve or deny', tags: ['oauth'], security: [{}],
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { username: { type: 'string' }, password: { type: 'string' }, decision: { enum: ['approve', 'deny'] }, flow: { type: 'string', description: 'The sealed state the form carries' } } } } } },
      responses: {
        303: redirect,
        400: page('Malformed form, or an expired or altered page'),
        403: page('Wrong user name or password (the form again), or a form posted from another site'),
        413: page('Form too large'),
        415: page('Not a UTF-8 urlencoded form'),
        429: page('Too many sign-in attempts (Retry-After)'),
      },
    },
    options: { operationId: `options${path.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`, tags: ['oauth'], security: [{}], responses: { 204: { description: 'Allow names the methods' } } },
  };
}
