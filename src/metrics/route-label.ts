/**
 * @module metrics/route-label
 * The route pattern a request matched (`/article/:key`), set by the handler mounted on it and read
 * once its response finishes: the metrics' `route` label, bounded by the routes, never the raw path.
 */
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

const ROUTE = Symbol('roa.routeLabel');

type Labelled = Request & { [ROUTE]?: string };

/** Records the pattern `req` matched. */
export function setRouteLabel(req: Request, pattern: string): void {
  (req as Labelled)[ROUTE] = pattern;
}

/** The pattern `req` matched, or undefined when no labelled route answered it. */
export function routeLabelOf(req: Request): string | undefined {
  return (req as Labelled)[ROUTE];
}

/**
 * Wraps a route handler so that the requests it answers are labelled with `pattern`.
 * @example
 *   app.all('/article/:key', labelled('/article/:key', handler));
 */
export function labelled(pattern: string, handler: (req: Request, res: Response, next: NextFunction) => void): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    (req as Labelled)[ROUTE] = pattern;
    handler(req, res, next);
  };
}
