/**
 * @module openapi/oauth1-paths
 * The OpenAPI path items of the OAuth 1.0a endpoints (auth/oauth1-flow): two signed form POSTs
 * answering form-encoded credentials, and the sign-in and approval page.
 */
import { OAUTH1_ENDPOINTS } from '../auth/oauth1-flow/oauth1-router.js';

type Json = Record<string, unknown>;

const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
const FORM = 'application/x-www-form-urlencoded';
const HTML = 'text/html';

function camel(path: string): string {
  return path.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** A signed endpoint: parameters in the `Authorization: OAuth` header, the query or the form body (RFC 5849 §3.5). */
function signedPost(path: string, summary: string): Json {
  return {
    operationId: `post${camel(path)}`,
    summary,
    tags: ['oauth'],
    description: 'Signed as RFC 5849 §3.4 says (HMAC-SHA1, HMAC-SHA256, RSA-SHA1, or PLAINTEXT over TLS); the protocol parameters go in the `Authorization: OAuth` header, the query or the form body.',
    security: [{}],
    requestBody: { required: false, content: { [FORM]: { schema: { type: 'object', additionalProperties: { type: 'string' } } } } },
    responses: {
      200: { description: 'Form-encoded credentials (Cache-Control: no-store)', content: { [FORM]: {} } },
      400: { description: 'Malformed request (missing, repeated or misplaced parameters, bad callback)', content: PROBLEM },
      401: { description: 'Bad signature, timestamp, nonce, token or verifier; `WWW-Authenticate: OAuth realm="roa"`', content: PROBLEM },
      413: { description: 'Form body too large', content: PROBLEM },
      429: { description: 'Too many unused temporary credentials', content: PROBLEM },
      431: { description: 'Authorization header too large', content: PROBLEM },
      503: { description: 'Nonce store or database unavailable', content: PROBLEM },
    },
  };
}

/** The approval page: GET shows it, POST takes `username`, `password`, `decision` and the page's hidden fields. */
function approvalPage(path: string, summary: string): Json {
  const token = { name: 'oauth_token', in: 'query', required: true, schema: { type: 'string' }, description: 'The temporary credentials identifier' };
  const page = (d: string): Json => ({ description: d, content: { [HTML]: {} } });
  const get = (m: string): Json => ({
    operationId: `${m}${camel(path)}`, summary, tags: ['oauth'], security: [{}], parameters: [token],
    responses: { 200: page('The sign-in and approval form'), 400: page('Unknown, expired or malformed request: an error page, never a redirect') },
  });
  return {
    get: get('get'),
    head: get('head'),
    post: {
      operationId: `post${camel(path)}`, summary: 'Sign in and approve or deny', tags: ['oauth'], security: [{}], parameters: [token],
      requestBody: { required: true, content: { [FORM]: { schema: { type: 'object', properties: { username: { type: 'string' }, password: { type: 'string' }, decision: { enum: ['approve', 'deny'] } } } } } },
      responses: {
        200: page('The verifier to copy (callback `oob`), or the denial'),
        303: { description: 'To the callback with oauth_token and oauth_verifier (or oauth_problem=user_refused)' },
        400: page('Malformed form, or expired request'),
        403: page('Wrong user name or password, or a form posted from another site'),
        429: page('Too many sign-in attempts (Retry-After)'),
      },
    },
  };
}

/** The path items by path. */
export function oauth1PathItems(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const e of OAUTH1_ENDPOINTS) {
    const options = { operationId: `options${camel(e.path)}`, tags: ['oauth'], security: [{}], responses: { 204: { description: 'Allow names the methods' } } };
    out[e.path] = e.methods.includes('GET') ? { ...approvalPage(e.path, e.summary), options } : { post: signedPost(e.path, e.summary), options };
  }
  return out;
}
