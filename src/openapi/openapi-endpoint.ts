/**
 * @module openapi/openapi-endpoint
 * `GET /openapi.json`: the description, built once per origin it names and kept as bytes.
 */
import { publicOrigin } from '../http/public-origin.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { ResourceSpec } from '../resources/resource.js';
import { BoundedMap } from '../util/bounded-map.js';
import { buildOpenApiDocument } from './openapi-document.js';

export const OPENAPI_PATH = '/openapi.json';

export interface OpenApiEndpointOptions {
  resources: readonly ResourceSpec<unknown, unknown>[];
  /** The configured OAuth issuer: `servers` names it; default each request's public origin. */
  issuer?: string;
  jwt?: boolean;
  passwordGrant?: boolean;
}

/** Distinct origins remembered: the Host a client sends is its own choice, so the memo is bounded. */
const MAX_ORIGINS = 64;

/**
 * The handler of `GET /openapi.json`.
 * @example
 *   app.get(OPENAPI_PATH, openapiHandler({ resources }))
 */
export function openapiHandler(opts: OpenApiEndpointOptions): (req: Request, res: Response) => void {
  const built = new BoundedMap<string, Buffer>(MAX_ORIGINS);
  return (req, res) => {
    const origin = opts.issuer ?? publicOrigin(req);
    let body = built.get(origin);
    if (body === undefined) {
      const doc = buildOpenApiDocument({ resources: opts.resources, origin, jwt: opts.jwt, passwordGrant: opts.passwordGrant });
      body = Buffer.from(JSON.stringify(doc));
      built.set(origin, body);
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    // Without --issuer the document names the origin the client reached: shared caches (the
    // gateway keys by path) must not hand it to clients of another origin.
    res.setHeader('Cache-Control', opts.issuer === undefined ? 'private, max-age=300' : 'public, max-age=300');
    res.setHeader('Content-Length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
