/**
 * @module router/router
 * Express 4's Router: a stack of layers tried in definition order, with `next()`, `next('route')`,
 * `next('router')`, `next(err)` and mounting — dispatched over a compiled index (router/matcher).
 */
import type { Request } from '../http/request.js';
import { pathnameOf } from '../http/request.js';
import type { Response } from '../http/response.js';
import { callErrorHandler, callHandler, flattenHandlers, type ErrorRequestHandler, type HandlerArg, type NextFunction, type RequestHandler } from './handler.js';
import { Layer, decodeParam } from './layer.js';
import { CandidateCursor } from './candidate-cursor.js';
import { Matcher, type Accept, type Candidate } from './matcher.js';
import { ROUTE_METHODS } from './methods.js';
import type { RoutePath } from './path.js';
import { Route } from './route.js';

export interface RouterOptions {
  /** `/foo` and `/foo/` differ (default false). */
  strict?: boolean;
  /** `/Foo` and `/foo` differ (default false). */
  caseSensitive?: boolean;
  /** Keep the parent router's `req.params` (default false). */
  mergeParams?: boolean;
}

type RouteMethod<T> = {
  (path: RoutePath, ...handlers: Array<RequestHandler | RequestHandler[]>): T;
  (path: RoutePath, ...handlers: HandlerArg[]): T;
};

/** A router is itself a middleware: `app.use('/api', router)`. */
export interface Router extends RouterCore {
  (req: Request, res: Response, next: NextFunction): void;
}

export class RouterCore {
  // One method per HTTP verb (and `all`), defined on the prototype below.
  declare get: RouteMethod<this>; declare post: RouteMethod<this>; declare put: RouteMethod<this>; declare delete: RouteMethod<this>;
  declare patch: RouteMethod<this>; declare head: RouteMethod<this>; declare options: RouteMethod<this>; declare all: RouteMethod<this>;
  declare stack: Layer[];
  declare strict: boolean;
  declare caseSensitive: boolean;
  declare mergeParams: boolean;
  declare private matcher: Matcher | undefined;
  declare private acceptsFn: Accept | undefined;
  /**
   * Set only by roa/express (its `router.param`): runs the param callbacks for a matched layer
   * with route params, then `done`. `called` is per dispatch, so a value is handled once.
   */
  declare paramHook: ParamHook | undefined;

  /** Adds middleware, mounted routers or error handlers, optionally under a path prefix. */
  use(...handlers: Array<RequestHandler | RequestHandler[]>): this;
  use(...handlers: Array<ErrorRequestHandler | ErrorRequestHandler[]>): this;
  use(path: RoutePath, ...handlers: Array<RequestHandler | RequestHandler[]>): this;
  use(path: RoutePath, ...handlers: Array<ErrorRequestHandler | ErrorRequestHandler[]>): this;
  use(...args: unknown[]): this;
  use(...args: unknown[]): this {
    let path: RoutePath = '/';
    let offset = 0;
    const first = args[0];
    if (typeof first !== 'function' && !Array.isArray(first)) {
      path = first as RoutePath;
      offset = 1;
    } else if (Array.isArray(first) && first.length > 0 && typeof first[0] !== 'function') {
      path = first as RoutePath;
      offset = 1;
    }
    const handlers = flattenHandlers(args.slice(offset), 'Router.use()');
    if (handlers.length === 0) throw new TypeError('roa: Router.use() requires a middleware function');
    for (const fn of handlers) {
      this.stack.push(new Layer(path, { sensitive: this.caseSensitive, strict: false, end: false }, fn));
    }
    this.matcher = undefined;
    return this;
  }

  /** Creates a route at `path` for chaining: `router.route('/a').get(h).put(h2)`. */
  route(path: RoutePath): Route {
    const route = new Route(path);
    const layer = new Layer(path, { sensitive: this.caseSensitive, strict: this.strict, end: true },
      (req: Request, res: Response, next: NextFunction) => route.dispatch(req, res, next), route);
    this.stack.push(layer);
    this.matcher = undefined;
    return route;
  }

  /** Dispatches a request through this router; `out` runs when no layer ends it. */
  handle(req: Request, res: Response, out: NextFunction | RouterOut): void {
    const stack = this.stack;
    const matcher = (this.matcher ??= new Matcher(stack, { strict: this.strict, sensitive: this.caseSensitive }));
    const mergeParams = this.mergeParams;
    const parentParams = req.params;
    const parentUrl = req.baseUrl || '';
    const parentNext = req.next;
    const accepts = (this.acceptsFn ??= answering(stack));
    const cursor = new CandidateCursor(matcher, accepts, pathnameOf(req.url ?? '/'), req.method ?? 'GET');
    // Express decides on entry whether this router answers an automatic OPTIONS.
    const answersOptions = req.method === 'OPTIONS';
    const protohost = req.url && req.url[0] !== '/' ? protohostOf(req.url) : '';
    let options: string[] | undefined;
    let removed = '';
    let slashAdded = false;
    let sync = 0;
    const paramHook = this.paramHook;
    let paramsCalled: Record<string, unknown> | undefined;

    const next: NextFunction = (err) => {
      let layerError = err === 'route' ? undefined : err;
      // Back from a mounted layer: give req.url and req.baseUrl back the prefix it stripped.
      if (slashAdded) {
        req.url = req.url!.slice(1);
        slashAdded = false;
      }
      if (removed.length !== 0) {
        req.baseUrl = parentUrl;
        req.url = protohost + removed + req.url!.slice(protohost.length);
        removed = '';
      }
      if (layerError === 'router') {
        // Leaving this router (`finish` is a plain function: no second closure per request).
        setImmediate(finish, req, res, out, undefined, parentUrl, parentNext, parentParams, answersOptions ? options : undefined);
        return;
      }
      if (++sync > 100) {
        setImmediate(next, err);
        return;
      }
      // Without a URL there is nothing to match (Express 4 hands such a request straight on).
      if (!req.url) {
        finish(req, res, out, layerError, parentUrl, parentNext, parentParams, undefined);
        return;
      }
      // Read per step: methodOverride() may change req.method, and any layer req.url.
      // A request without a method matches only middleware and `all` routes, as in Express 4.
      const method = req.method ?? '';
      cursor.follow(pathnameOf(req.url ?? '/'), method);
      const path = cursor.path;

      // Find the next layer that matches.
      let layer: Layer | undefined;
      let params: Params | undefined;
      let layerPath = '';
      let candidate: Candidate | undefined;
      while ((candidate = cursor.take(method)) !== undefined) {
        const l = stack[candidate.index]!;
        const route = l.route;
        // Express matches (and percent-decodes) before it looks at the method; a malformed escape
        // is an error even on a route for another method. Indexed matches decode lazily, so they
        // only check escapes when the route is skipped.
        let matched = candidate.params;
        if (matched !== undefined) {
          layerPath = path;
        } else if (candidate.names === undefined) {
          try {
            const m = l.match(path);
            if (m === undefined) continue;
            matched = m.params;
            layerPath = m.path;
          } catch (e) {
            layerError = layerError ?? e;
            continue;
          }
        }
        if (route !== undefined) {
          // Routes do not run while an error is pending.
          if (layerError) continue;
          if (!route.handlesMethod(method)) {
            if (method === 'OPTIONS') appendMethods((options ??= []), route.allowedMethods());
            if (method !== 'HEAD') {
              if (candidate.values !== undefined) {
                try {
                  checkEscapes(candidate.values);
                } catch (e) {
                  layerError = e;
                }
              }
              continue;
            }
          }
        }
        if (matched === undefined) {
          try {
            matched = buildParams(candidate.names!, candidate.values!);
          } catch (e) {
            layerError = layerError ?? e;
            continue;
          }
          layerPath = path;
        }
        params = matched;
        layer = l;
        break;
      }
      if (layer === undefined) {
        finish(req, res, out, layerError, parentUrl, parentNext, parentParams, answersOptions ? options : undefined);
        return;
      }
      req.params = mergeParams ? mergeParentParams(params!, parentParams) : params!;
      req.next = next;
      if (paramHook !== undefined && layer.keys.length !== 0) {
        // roa/express's app.param callbacks run between the match and the layer (Express's process_params).
        const l = layer, lp = layerPath, p = path, le = layerError;
        paramHook(l, req, res, (paramsCalled ??= Object.create(null) as Record<string, unknown>), (e) => {
          if (e) next(le ?? e);
          else enter(l, lp, p, le);
        });
        return;
      }
      enter(layer, layerPath, path, layerError);
    };

    const enter = (layer: Layer, layerPath: string, path: string, layerError: unknown): void => {
      if (layer.route !== undefined) {
        layer.route.dispatch(req, res, next);
        sync = 0;
        return;
      }
      // Mounted middleware: strip the matched prefix from req.url for the duration of the layer.
      if (layerPath.length !== 0) {
        const c = path[layerPath.length];
        if (layerPath !== path.slice(0, layerPath.length) || (c !== undefined && c !== '/' && c !== '.')) {
          next(layerError);
          return;
        }
        removed = layerPath;
        req.url = protohost + req.url!.slice(protohost.length + removed.length);
        if (!protohost && req.url[0] !== '/') {
          req.url = '/' + req.url;
          slashAdded = true;
        }
        req.baseUrl = parentUrl + (removed[removed.length - 1] === '/' ? removed.slice(0, -1) : removed);
      }
      if (layerError) callErrorHandler(layer.handle, layerError, req, res, next);
      else callHandler(layer.handle, req, res, next);
      sync = 0;
    };

    req.next = next;
    req.baseUrl = parentUrl;
    if (!req.originalUrl) req.originalUrl = req.url ?? '/';
    next();
  }
}

for (const method of [...ROUTE_METHODS, 'all']) {
  Object.defineProperty(RouterCore.prototype, method, {
    value: function (this: RouterCore, path: RoutePath, ...handlers: HandlerArg[]) {
      const route = this.route(path);
      (route[method] as (...h: HandlerArg[]) => Route)(...handlers);
      return this;
    },
    writable: true,
    configurable: true,
  });
}

/** Lets the index drop routes that cannot answer a method (created once per router). */
function answering(stack: readonly Layer[]): Accept {
  return (index, method) => {
    const route = stack[index]!.route;
    return route === undefined || route.handlesMethod(method);
  };
}

/**
 * A child's params over its parent's (`mergeParams`). When both have positional params the
 * child's are numbered after the parent's, as Express 4 does: parent `{0:'12'}` and child
 * `{0:'abc'}` give `{0:'12', 1:'abc'}`.
 */
function mergeParentParams(params: Params, parent: Params): Params {
  if (!('0' in params) || !('0' in parent)) return { ...parent, ...params };
  let own = 0;
  while (own in params) own++;
  let offset = 0;
  while (offset in parent) offset++;
  const merged: Params = { ...parent };
  for (const key in params) {
    if (!isPositionBelow(key, own)) merged[key] = params[key];
  }
  // After the keys above: a shifted value lands on a higher position the child also had.
  for (let i = 0; i < own; i++) merged[i + offset] = params[i];
  return merged;
}

type Params = Record<string, string | undefined>;

/** `key` is a canonical array index below `limit` (`'0'`, `'1'`, … not `'01'`). */
function isPositionBelow(key: string, limit: number): boolean {
  const n = Number(key);
  return Number.isInteger(n) && n >= 0 && n < limit && String(n) === key;
}

/** Throws the 400 a malformed escape gives, as decoding would. */
function checkEscapes(values: readonly string[]): void {
  for (const v of values) if (v.indexOf('%') !== -1) decodeParam(v);
}

/** Params of an indexed match: names and still-encoded values by position (a repeated name keeps the last). */
function buildParams(names: readonly string[], values: readonly string[]): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = {};
  for (let i = 0; i < names.length; i++) params[names[i]!] = decodeParam(values[i]);
  return params;
}

function protohostOf(url: string): string {
  const q = url.indexOf('?');
  const pathLength = q === -1 ? url.length : q;
  const fqdn = url.slice(0, pathLength).indexOf('://');
  return fqdn === -1 ? '' : url.slice(0, url.indexOf('/', 3 + fqdn) === -1 ? url.length : url.indexOf('/', 3 + fqdn));
}

/** Leaving a router: restore what it changed, answer an automatic OPTIONS, else hand on. */
function finish(req: Request, res: Response, out: RouterOut, err: unknown, baseUrl: string, next: NextFunction | undefined, params: Record<string, string | undefined>, options: string[] | undefined): void {
  req.baseUrl = baseUrl;
  req.next = next;
  req.params = params;
  if (options !== undefined && !err && options.length > 0) {
    sendOptions(res, options);
    return;
  }
  out(err, req, res);
}

/** See RouterCore.paramHook. */
export type ParamHook = (layer: Layer, req: Request, res: Response, called: Record<string, unknown>, done: (err?: unknown) => void) => void;

/** Where a router hands a request it did not end: a parent's `next`, or the app's final handler (which also takes req and res). */
export type RouterOut = (err: unknown, req: Request, res: Response) => void;

function appendMethods(list: string[], add: readonly string[]): void {
  for (const m of add) if (!list.includes(m)) list.push(m);
}

/** Express 4's automatic OPTIONS answer: 200, `Allow` listing the routed methods. */
function sendOptions(res: Response, methods: readonly string[]): void {
  const body = methods.join(',');
  res.statusCode = 200;
  res.setHeader('Allow', body);
  res.send(body);
}

/**
 * Creates a router, mountable with `app.use(prefix, router)`.
 * @example
 *   const users = Router({ mergeParams: true })
 *   users.get('/:id', (req, res) => res.json({ id: req.params.id }))
 *   app.use('/users', users)
 */
export function Router(options: RouterOptions = {}): Router {
  const router = function (req: Request, res: Response, next: NextFunction): void {
    router.handle(req, res, next);
  } as Router;
  Object.setPrototypeOf(router, RouterCore.prototype);
  router.stack = [];
  router.strict = options.strict === true;
  router.caseSensitive = options.caseSensitive === true;
  router.mergeParams = options.mergeParams === true;
  router.paramHook = undefined;
  return router;
}
