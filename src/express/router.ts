/**
 * @module express/router
 * Express 4's Router on roa's compiled router: the same dispatch (router/router), plus what
 * Express adds at the edges — `router.param` (run between a match and its layer, through the
 * engine's param hook) and Express's messages for bad `use()` arguments.
 */
import depd from 'depd';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { NextFunction } from '../router/handler.js';
import { Router as createRoaRouter, RouterCore, type ParamHook, type RouterOptions } from '../router/router.js';

const deprecate = depd('express');

/** `app.param` / `router.param` callback: `(req, res, next, value, name)`. */
export type ParamCallback = (req: Request, res: Response, next: NextFunction, value: unknown, name: string | number) => unknown;
/** The deprecated `router.param(fn)` form: turns `(name, fn)` into the callback to register. */
export type ParamMapper = (name: string, fn: unknown) => ParamCallback | undefined | void;

export interface ExpressRouter extends RouterCore {
  (req: Request, res: Response, next: NextFunction): void;
  params: Record<string, ParamCallback[]>;
  _params: ParamMapper[];
  param(name: string | ParamMapper, fn?: ParamCallback): this;
}

/** Express's name for a value's type in error messages: `string`, `number`, `Null`, `Date`. */
export function typeName(value: unknown): string {
  const type = typeof value;
  if (type !== 'object') return type;
  return Object.prototype.toString.call(value).replace(/^\[object (\S+)\]$/, '$1');
}

/** Flattens nested arrays as Express's array-flatten does. */
export function flattenArgs(args: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) visit(x);
    else out.push(v);
  };
  visit(args);
  return out;
}

/** Splits `use()` arguments Express's way: a leading non-function (not an array of functions) is the path. */
export function splitUseArgs(args: readonly unknown[]): { path: unknown; fns: unknown[] } {
  let path: unknown = '/';
  let offset = 0;
  const first = args[0];
  if (typeof first !== 'function') {
    let arg = first;
    while (Array.isArray(arg) && arg.length !== 0) arg = arg[0];
    if (typeof arg !== 'function') {
      offset = 1;
      path = first;
    }
  }
  return { path, fns: flattenArgs(args.slice(offset)) };
}

interface ParamCalled {
  error: unknown;
  match: unknown;
  value: unknown;
}

/** Builds the hook for one router: its callbacks, run per key in order, each value once per dispatch. */
function paramHookFor(router: ExpressRouter): ParamHook {
  return (layer, req, res, called, done) => {
    const keys = layer.keys;
    const params = router.params;
    let i = 0;
    let fns: ParamCallback[] | undefined;
    let fnIndex = 0;
    let name: string | number = '';
    let value: unknown;
    let state: ParamCalled | undefined;

    const nextKey = (err?: unknown): void => {
      if (err) {
        done(err);
        return;
      }
      if (i >= keys.length) {
        done();
        return;
      }
      fnIndex = 0;
      name = keys[i++]!.name;
      value = req.params[name];
      fns = params[name];
      const seen = called[name] as ParamCalled | undefined;
      if (value === undefined || !fns) {
        nextKey();
        return;
      }
      if (seen && (seen.match === value || (seen.error && seen.error !== 'route'))) {
        // Already run for this value in this dispatch: reuse what it left (or its error).
        (req.params as Record<string | number, unknown>)[name] = seen.value;
        nextKey(seen.error);
        return;
      }
      state = { error: null, match: value, value };
      called[name] = state;
      nextCallback();
    };

    const nextCallback = (err?: unknown): void => {
      const fn = fns![fnIndex++];
      state!.value = req.params[name];
      if (err) {
        state!.error = err;
        nextKey(err);
        return;
      }
      if (!fn) {
        nextKey();
        return;
      }
      try {
        fn(req, res, nextCallback, value, name);
      } catch (e) {
        nextCallback(e);
      }
    };

    nextKey();
  };
}

const proto = Object.create(RouterCore.prototype) as ExpressRouter;

proto.param = function param(this: ExpressRouter, name: string | ParamMapper, fn?: ParamCallback) {
  if (typeof name === 'function') {
    deprecate('router.param(fn): Refactor to use path params');
    this._params.push(name);
    return this;
  }
  if (name[0] === ':') {
    deprecate(`router.param(${JSON.stringify(name)}, fn): Use router.param(${JSON.stringify(name.slice(1))}, fn) instead`);
    name = name.slice(1);
  }
  let callback: unknown = fn;
  for (const mapper of this._params) {
    const mapped = mapper(name, callback);
    if (mapped) callback = mapped;
  }
  if (typeof callback !== 'function') throw new Error(`invalid param() call for ${name}, got ${String(callback)}`);
  (this.params[name] ??= []).push(callback as ParamCallback);
  this.paramHook ??= paramHookFor(this);
  return this;
};

proto.use = function use(this: ExpressRouter, ...args: unknown[]) {
  const { path, fns } = splitUseArgs(args);
  if (fns.length === 0) throw new TypeError('Router.use() requires a middleware function');
  for (const fn of fns) {
    if (typeof fn !== 'function') throw new TypeError(`Router.use() requires a middleware function but got a ${typeName(fn)}`);
  }
  return RouterCore.prototype.use.call(this, path, ...fns) as ExpressRouter;
} as ExpressRouter['use'];

/**
 * `express.Router(options)`: a router with `param`, usable as middleware; `new` works too.
 * @example
 *   const users = express.Router({ mergeParams: true })
 *   users.param('id', (req, res, next, id) => { req.user = find(id); next() })
 */
export function Router(options: RouterOptions = {}): ExpressRouter {
  const router = createRoaRouter(options) as unknown as ExpressRouter;
  Object.setPrototypeOf(router, proto);
  router.params = {};
  router._params = [];
  return router;
}

/** The prototype of routers `Router()` makes (for `instanceof`-free checks). */
export const routerPrototype: ExpressRouter = proto;
