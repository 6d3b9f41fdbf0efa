/**
 * @module openapi/openapi-document
 * Builds the OpenAPI 3.1 description of the service from what it declares: the resources
 * (paths, methods, media types, statuses), the OAuth endpoints and the operational endpoints.
 */
import { STATUS_CODES } from 'node:http';
import { OAUTH_ENDPOINTS } from '../auth/oauth-router.js';
import { supportedMethods, type ResourceSpec } from '../resources/resource.js';
import { OPERATIONAL_ENDPOINTS } from './operational-endpoints.js';
import { oauth1PathItems } from './oauth1-paths.js';
import { authorizePathItem } from './authorize-path.js';

type Json = Record<string, unknown>;

export interface OpenApiInput {
  resources: readonly ResourceSpec<unknown, unknown>[];
  /** The origin named in `servers` and the OAuth token URL (the issuer, or the request's public origin). */
  origin: string;
  /** JWT access tokens: the JWK Set endpoint is served. */
  jwt?: boolean;
  /** The password grant is on (a second OAuth flow). */
  passwordGrant?: boolean;
  /** Every OAuth scope, with a description each (default: the resources' read and write scopes). */
  scopes?: Record<string, string>;
  version?: string;
}

const PROBLEM_TYPE = 'application/problem+json';
const SCHEMES = { basic: 'basicAuth', hmac: 'hmac', oauth2: 'oauth2' } as const;

/** `/article/:key` → `/article/{key}` and the names of its parameters. */
export function openApiPath(expressPath: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = expressPath.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

/**
 * The OpenAPI 3.1 document.
 * @example
 *   buildOpenApiDocument({ resources: [articleItemResource({ store })], origin: 'https://api.example' })
 */
export function buildOpenApiDocument(input: OpenApiInput): Json {
  const paths: Record<string, Json> = {};
  for (const spec of input.resources) {
    for (const p of spec.paths) {
      const { path, params } = openApiPath(p);
      paths[path] = resourcePathItem(spec, path, params);
    }
  }
  for (const e of OAUTH_ENDPOINTS) {
    if (e.jwtOnly === true && input.jwt !== true) continue;
    paths[e.path] = e.page === true ? authorizePathItem(e.path, e.summary) : oauthPathItem(e.path, e.method, e.summary);
  }
  Object.assign(paths, oauth1PathItems());
  for (const e of OPERATIONAL_ENDPOINTS) {
    const op = (method: string): Json => ({
      operationId: `${method.toLowerCase()}${camel(e.path)}`,
      summary: e.summary,
      tags: ['operations'],
      security: [{}],
      responses: Object.fromEntries(Object.entries(e.responses).map(([status, r]) => [status, {
        description: r.description,
        ...(r.mediaType !== undefined && method !== 'HEAD' ? { content: { [r.mediaType]: {} } } : {}),
      }])),
    });
    paths[e.path] = Object.fromEntries(e.methods.map((m) => [m.toLowerCase(), op(m)]));
  }
  return {
    openapi: '3.1.0',
    info: { title: 'roa article service', version: input.version ?? '1.0.0', description: 'Generated from the resource declarations (GET /openapi.json).' },
    servers: [{ url: input.origin }],
    tags: [{ name: 'articles' }, { name: 'oauth' }, { name: 'operations' }],
    paths,
    components: { schemas: { Problem: PROBLEM_SCHEMA, OAuthError: OAUTH_ERROR_SCHEMA }, securitySchemes: securitySchemes(input) },
  };
}

function securitySchemes(input: OpenApiInput): Json {
  const tokenUrl = new URL('/oauth/token', input.origin).href;
  const scopes = input.scopes ?? scopesOf(input.resources);
  return {
    [SCHEMES.basic]: { type: 'http', scheme: 'basic', description: 'RFC 7617, user name and password (failed attempts are throttled)' },
    [SCHEMES.hmac]: {
      type: 'apiKey',
      in: 'header',
      name: 'Authentication',
      description: "roa's `hmac` scheme in the `Authentication` header: `hmac <user>:<nonce>:<base64 HMAC-SHA256>` over the string to sign (method, path, Date, nonce, Content-Digest of the body; RFC 9530), nonces single-use within the clock-skew window; the minimal form `hmac <user>:<digest>` only where allowed. Challenges name it in WWW-Authenticate.",
    },
    [SCHEMES.oauth2]: {
      type: 'oauth2',
      description: 'OAuth 2.0 bearer access tokens (RFC 6750) in `Authorization: Bearer`, opaque or RFC 9068 JWTs',
      flows: {
        authorizationCode: { authorizationUrl: new URL('/oauth/authorize', input.origin).href, tokenUrl, refreshUrl: tokenUrl, scopes },
        clientCredentials: { tokenUrl, refreshUrl: tokenUrl, scopes },
        ...(input.passwordGrant !== false ? { password: { tokenUrl, refreshUrl: tokenUrl, scopes } } : {}),
      },
    },
  };
}

function scopesOf(resources: readonly ResourceSpec<unknown, unknown>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of resources) {
    if (r.scopes === undefined) continue;
    out[r.scopes.read] = `Read ${r.name}`;
    out[r.scopes.write] = `Create, replace and delete ${r.name}`;
  }
  return out;
}

/** Who may call: anonymous reads, authenticated writes (resources/policy). */
function security(spec: ResourceSpec<unknown, unknown>, safe: boolean): Json[] {
  const scope = spec.scopes === undefined ? [] : [safe ? spec.scopes.read : spec.scopes.write];
  const schemes = [{ [SCHEMES.basic]: [] }, { [SCHEMES.hmac]: [] }, { [SCHEMES.oauth2]: scope }];
  return safe ? [{}, ...schemes] : schemes;
}

/** The statuses a method of a declared resource can answer besides its success (resources/resource's decision order). */
function errorStatuses(spec: ResourceSpec<unknown, unknown>, method: string, addressed: boolean): number[] {
  const s = new Set<number>([400, 401, 403]);
  if (method !== 'OPTIONS') s.add(406);
  if (addressed && method !== 'OPTIONS' && method !== 'POST') s.add(404);
  if (method === 'GET' || method === 'HEAD' || method === 'PUT' || method === 'DELETE') s.add(412);
  if (method === 'PUT' || method === 'POST') for (const n of [413, 415, 422]) s.add(n);
  if (method === 'POST' && spec.idempotency !== undefined) s.add(409);
  for (const n of spec.statuses?.[method] ?? []) s.add(n);
  return [...s].sort((a, b) => a - b);
}

function content(mediaTypes: readonly string[]): Json {
  return Object.fromEntries(mediaTypes.map((m) => [m, {}]));
}

function problem(status: number): Json {
  return { description: STATUS_CODES[status] ?? String(status), content: { [PROBLEM_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } } };
}

const ETAG = { description: 'Strong validator of this representation', schema: { type: 'string' } };
const LOCATION = { description: 'URL of the created record', schema: { type: 'string' } };

function resourcePathItem(spec: ResourceSpec<unknown, unknown>, path: string, params: string[]): Json {
  const item: Json = {
    summary: spec.summary ?? spec.name,
    description: `Methods not listed here are answered 405 with Allow: ${supportedMethods(spec).join(', ')}.`,
  };
  if (params.length > 0) item.parameters = params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const views = spec.views.map((v) => v.mediaType);
  // A write chosen with a page (HTML) answers 303, so only the data views describe write responses.
  const dataViews = spec.views.filter((v) => v.page === undefined).map((v) => v.mediaType);
  const seeOther = spec.views.some((v) => v.page !== undefined)
    ? { description: 'See Other: a client preferring text/html (a browser\'s form) is sent to the written resource, or to the collection after DELETE', headers: { Location: { schema: { type: 'string' } } } }
    : undefined;
  const bodies = (spec.bodies ?? []).map((b) => b.mediaType);
  for (const method of supportedMethods(spec)) {
    const safe = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    const op: Json = {
      operationId: `${method.toLowerCase()}${camel(path)}`,
      tags: ['articles'],
      security: security(spec, safe),
    };
    const ok: Record<string, Json> = {};
    if (method === 'GET' || method === 'HEAD') {
      ok['200'] = { description: 'The representation chosen by Accept', headers: { ETag: ETAG }, ...(method === 'GET' ? { content: content(views) } : {}) };
      ok['304'] = { description: 'Not Modified (If-None-Match, If-Modified-Since)' };
    } else if (method === 'OPTIONS') {
      ok['200'] = { description: 'The methods this caller may use, in Allow', headers: { Allow: { schema: { type: 'string' } } } };
    } else if (method === 'PUT') {
      ok['200'] = { description: 'Replaced', headers: { ETag: ETAG }, content: content(dataViews) };
      ok['201'] = { description: 'Created at this URL', headers: { ETag: ETAG, Location: LOCATION }, content: content(dataViews) };
    } else if (method === 'POST') {
      const created = (spec.created?.views ?? spec.views).filter((v) => v.page === undefined).map((v) => v.mediaType);
      const headers: Json = { ETag: ETAG, Location: LOCATION };
      if (spec.idempotency !== undefined) headers['Idempotent-Replayed'] = { description: '`true` when this answers a retry with the same Idempotency-Key again', schema: { type: 'string', enum: ['true'] } };
      ok['201'] = { description: 'Created', headers, content: content(created) };
    } else if (method === 'DELETE') {
      ok['204'] = { description: 'Deleted' };
    }
    if (seeOther !== undefined && (method === 'PUT' || method === 'POST' || method === 'DELETE')) ok['303'] = seeOther;
    if (method === 'PUT' || method === 'POST') op.requestBody = { required: true, content: content(bodies) };
    if (method === 'POST' && spec.idempotency !== undefined) op.parameters = [IDEMPOTENCY_KEY];
    if (method === 'PUT' || method === 'DELETE') op.parameters = [IF_MATCH];
    const addressed = params.length > 0;
    op.responses = { ...ok, ...Object.fromEntries(errorStatuses(spec, method, addressed).map((n) => [String(n), problem(n)])) };
    item[method.toLowerCase()] = op;
  }
  return item;
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'draft-ietf-httpapi-idempotency-key-header: a retry with the same key and body answers the first response again (201, `Idempotent-Replayed: true`); the same key with another body 422; while the first is running 409. A structured-field string or a bare token; keys are per caller, kept 24 hours.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const IF_MATCH = { name: 'If-Match', in: 'header', required: false, description: 'Lost-update protection (RFC 9110 §13.1.1): 412 when it names no current ETag', schema: { type: 'string' } };

function oauthPathItem(path: string, method: 'GET' | 'POST', summary: string): Json {
  const options = { operationId: `options${camel(path)}`, tags: ['oauth'], security: [{}], responses: { 204: { description: 'Allow names the methods' } } };
  if (method === 'GET') {
    const mediaType = path.endsWith('jwks.json') ? 'application/jwk-set+json' : 'application/json';
    const get = (m: string): Json => ({
      operationId: `${m}${camel(path)}`,
      summary,
      tags: ['oauth'],
      security: [{}],
      responses: { 200: { description: summary, ...(m === 'get' ? { content: { [mediaType]: {} } } : {}) }, 405: { description: 'Method Not Allowed', content: { [PROBLEM_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } } } },
    });
    return { get: get('get'), head: get('head'), options };
  }
  const oauthError = (d: string): Json => ({ description: d, content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } } });
  return {
    post: {
      operationId: `post${camel(path)}`,
      summary,
      tags: ['oauth'],
      // RFC 6749 §2.3.1: the client authenticates with HTTP Basic or client_id/client_secret in the form.
      security: [{ [SCHEMES.basic]: [] }, {}],
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } } } },
      responses: {
        200: { description: 'Success (never stored: Cache-Control no-store)', ...(path === '/oauth/revoke' ? {} : { content: { 'application/json': {} } }) },
        400: oauthError('RFC 6749 §5.2 error (invalid_request, invalid_grant, …)'),
        401: oauthError('invalid_client, with a Basic challenge'),
        503: oauthError('temporarily_unavailable'),
      },
    },
    options,
  };
}

function camel(path: string): string {
  return path.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details',
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' },
    code: { type: 'string', description: 'Stable roa error code (ROA_ERR_…)' },
    errors: { type: 'array', items: { type: 'object' }, description: 'Validation errors (422)' },
  },
};

const OAUTH_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
};
