/**
 * @module router/route
 * A route: one path, handlers per method, run in order (Express's Route). HEAD falls back to GET.
 */
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { callErrorHandler, callHandler, flattenHandlers, type Handler, type HandlerArg, type NextFunction } from './handler.js';
import { lowerMethod, ROUTE_METHODS } from './methods.js';
import type { RoutePath } from './path.js';

interface RouteEntry {
  /** Lower-case method, or undefined for `all`. */
  method: string | undefined;
  handle: Handler;
}

type RouteMethod = (...handlers: HandlerArg[]) => Route;

export class Route {
  // One method per HTTP verb (and `all`), defined on the prototype below.
  declare get: RouteMethod; declare post: RouteMethod; declare put: RouteMethod; declare delete: RouteMethod;
  declare patch: RouteMethod; declare head: RouteMethod; declare options: RouteMethod; declare all: RouteMethod;
  [method: string]: unknown;
  readonly path: RoutePath;
  readonly stack: RouteEntry[] = [];
  /** Methods with a handler (lower-case); `_all` when `all()` was used. */
  readonly methods: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
  /** Upper-case methods this route answers, HEAD included when GET is there (checked per request). */
  private readonly answers = new Map<string, true>();
  private answersAll = false;

  constructor(path: RoutePath) {
    this.path = path;
  }

  /** Whether a request with this (upper-case) method has handlers here. */
  handlesMethod(method: string): boolean {
    if (this.answersAll || this.answers.has(method)) return true;
    // Requests carry upper-case methods; only callers passing `get` need the fold.
    const c = method.charCodeAt(0);
    return c >= 97 && c <= 122 ? this.answers.has(method.toUpperCase()) : false;
  }

  /** The methods for an automatic `Allow` (upper-case; HEAD implied by GET). */
  allowedMethods(): string[] {
    const list = Object.keys(this.methods).filter((m) => m !== '_all');
    if (this.methods.get && !this.methods.head) list.push('head');
    return list.map((m) => m.toUpperCase());
  }

  /** Adds handlers for one method (or all when `method` is undefined). */
  addHandlers(method: string | undefined, handlers: readonly unknown[]): this {
    for (const handle of flattenHandlers(handlers, `Route.${method ?? 'all'}()`)) {
      this.stack.push({ method, handle });
    }
    this.methods[method ?? '_all'] = true;
    if (method === undefined) this.answersAll = true;
    else this.answers.set(method.toUpperCase(), true);
    if (method === 'get') this.answers.set('HEAD', true);
    return this;
  }

  /** Runs the handlers that apply to `req.method`, in order; `next('route')` leaves the route. */
  dispatch(req: Request, res: Response, done: NextFunction): void {
    const stack = this.stack;
    let method = req.method === undefined ? '' : lowerMethod(req.method);
    if (method === 'head' && !this.methods.head) method = 'get';
    req.route = this;
    // Common case: one handler for the method. Its `next` is the router's own, which treats
    // 'route' as "continue with the next layer" — exactly what leaving a one-handler route means.
    if (stack.length === 1) {
      const only = stack[0]!;
      if (only.method === undefined || only.method === method) {
        callHandler(only.handle, req, res, done);
        return;
      }
      done();
      return;
    }
    let idx = 0;
    let sync = 0;
    const next: NextFunction = (err) => {
      if (err === 'route') return done();
      if (err === 'router') return done(err);
      // Deep synchronous chains are broken up so they cannot overflow the stack.
      if (++sync > 100) {
        setImmediate(next, err);
        return;
      }
      while (idx < stack.length) {
        const entry = stack[idx++]!;
        if (entry.method !== undefined && entry.method !== method) continue;
        if (err) callErrorHandler(entry.handle, err, req, res, next);
        else callHandler(entry.handle, req, res, next);
        sync = 0;
        return;
      }
      done(err);
    };
    next();
  }
}

for (const method of [...ROUTE_METHODS, 'all']) {
  Object.defineProperty(Route.prototype, method, {
    value: function (this: Route, ...handlers: HandlerArg[]): Route {
      return this.addHandlers(method === 'all' ? undefined : method, handlers);
    },
    writable: true,
    configurable: true,
  });
}
