/**
 * @module metrics/route-label
 * The route pattern a request matched (`/article/:key`), read once its response finishes: the
 * metrics' `route` label, bounded by the routes, never the raw path. The router records the route
 * it dispatched to as `req.route` (as Express does), so nothing is added per request for it.
 */
import type { Request } from '../http/request.js';

/**
 * The string pattern of the route that handled `req`, or undefined when no route did (middleware
 * alone, no match) or its path is a RegExp or a list (one route mounted on several paths).
 */
export function routeLabelOf(req: Request): string | undefined {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : undefined;
}
