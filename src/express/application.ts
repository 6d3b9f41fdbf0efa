/**
 * @module express/application
 * `express.application`: the methods every `express()` app gets (copied onto the app function, as
 * Express does, so changes made to it before `express()` show). Settings, `use` with sub-apps,
 * routes and params on a lazily made router (express/router, roa's compiled one underneath),
 * views, and `handle`, which gives each request the app's request and response prototypes.
 *
 * Requests from `app.listen()` are born with the app's prototypes (the server is made with classes
 * whose prototypes are `app.request` / `app.response`), so the hot path changes no prototype; a
 * request from elsewhere (`http.createServer(app)`, a parent app) is adopted once per app it enters.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import depd from 'depd';
import finalhandler from 'finalhandler';
import methods from 'methods';
import { activeFastPaths } from '../http/fast-paths.js';
import { initRequest, Request } from '../http/request.js';
import { flushPerTurn, requestStarted } from '../http/turn-flush.js';
import { Response } from '../http/response.js';
import type { NextFunction } from '../router/handler.js';
import type { RoutePath } from '../router/path.js';
import type { Route } from '../router/route.js';
import { compileQueryParser } from './query.js';
import { Router, splitUseArgs, type ExpressRouter, type ParamCallback } from './router.js';
import { compileETag, compileTrust } from './settings.js';
import { View, type ViewEngine } from './view.js';

const deprecate = depd('express');

/** Set on `settings` while `trust proxy` has its default, so a mounted app inherits its parent's. */
const TRUST_PROXY_DEFAULT = Symbol('trust proxy default');
/** Set on an app whose `listen()` server flushes responses per turn (http/turn-flush). */
const TURN_FLUSH = Symbol('roa.express.turnFlush');
/** The app's finalhandler call, made once per app. */
const FINAL_OUT = Symbol('roa.express.finalOut');

type Settings = Record<string | symbol, unknown>;
type AnyFn = (...args: never[]) => unknown;

/** An app from `express()`: callable as a request listener, an EventEmitter, with these methods. */
export interface ExpressApp {
  (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  [key: string]: unknown;
  [TURN_FLUSH]?: boolean;
  [FINAL_OUT]?: (err: unknown, req: Request, res: Response) => void;
  settings: Settings;
  locals: Record<string, unknown>;
  cache: Record<string, View>;
  engines: Record<string, ViewEngine>;
  mountpath: string | string[];
  parent: ExpressApp | undefined;
  request: object;
  response: object;
  _router: ExpressRouter | undefined;
  init(): void;
  defaultConfiguration(): void;
  lazyrouter(): ExpressRouter;
  handle(req: IncomingMessage, res: ServerResponse, callback?: NextFunction): void;
  use(...args: unknown[]): ExpressApp;
  route(path: RoutePath): Route;
  engine(ext: string, fn: ViewEngine): ExpressApp;
  param(name: string | string[], fn: ParamCallback): ExpressApp;
  set(setting: string, value?: unknown): unknown;
  get(setting: string): unknown;
  get(path: RoutePath, ...handlers: unknown[]): ExpressApp;
  path(): string;
  enabled(setting: string): boolean;
  disabled(setting: string): boolean;
  enable(setting: string): ExpressApp;
  disable(setting: string): ExpressApp;
  all(path: RoutePath, ...handlers: unknown[]): ExpressApp;
  render(name: string, options?: unknown, callback?: unknown): void;
  listen(...args: unknown[]): http.Server;
  on(event: string, listener: (...args: never[]) => void): ExpressApp;
  emit(event: string, ...args: unknown[]): boolean;
}

const application = {} as Record<string, unknown> & ThisType<ExpressApp>;

application.init = function init(this: ExpressApp): void {
  this.cache = {};
  this.engines = {};
  this.settings = {};
  this._router = undefined;
  this.defaultConfiguration();
};

application.defaultConfiguration = function defaultConfiguration(this: ExpressApp): void {
  const env = process.env.NODE_ENV || 'development';
  this.enable('x-powered-by');
  this.set('etag', 'weak');
  this.set('env', env);
  this.set('query parser', 'extended');
  this.set('subdomain offset', 2);
  this.set('trust proxy', false);
  Object.defineProperty(this.settings, TRUST_PROXY_DEFAULT, { configurable: true, value: true });

  this.on('mount', function onmount(this: ExpressApp, parent: ExpressApp) {
    // A sub-app that never set `trust proxy` follows its parent's.
    if (this.settings[TRUST_PROXY_DEFAULT] === true && typeof parent.settings['trust proxy fn'] === 'function') {
      delete this.settings['trust proxy'];
      delete this.settings['trust proxy fn'];
    }
    // What the sub-app does not set itself it inherits: request/response additions, engines, settings.
    Object.setPrototypeOf(this.request, parent.request);
    Object.setPrototypeOf(this.response, parent.response);
    Object.setPrototypeOf(this.engines, parent.engines);
    Object.setPrototypeOf(this.settings, parent.settings);
  });

  this.locals = Object.create(null) as Record<string, unknown>;
  this.mountpath = '/';
  this.locals.settings = this.settings;
  this.set('view', View);
  this.set('views', resolve('views'));
  this.set('jsonp callback name', 'callback');
  if (env === 'production') this.enable('view cache');

  Object.defineProperty(this, 'router', {
    configurable: true,
    get() {
      throw new Error('app.router is gone since Express 4: routes and middleware go on the app itself (app.get, app.use)');
    },
  });
};

application.lazyrouter = function lazyrouter(this: ExpressApp): ExpressRouter {
  // Made at the first route, so `case sensitive routing` / `strict routing` set before it apply.
  this._router ??= Router({ caseSensitive: this.enabled('case sensitive routing'), strict: this.enabled('strict routing') });
  return this._router;
};

application.handle = function handle(this: ExpressApp, req: IncomingMessage, res: ServerResponse, callback?: NextFunction): void {
  if (callback === undefined && this[TURN_FLUSH] === true) requestStarted();
  enterApp(this, req as Request, res as Response);
  const router = this._router;
  const out = callback ?? (this[FINAL_OUT] ??= finalOut(this));
  if (router === undefined) {
    (out as (err: unknown, req: Request, res: Response) => void)(undefined, req as Request, res as Response);
    return;
  }
  router.handle(req as Request, res as Response, out as NextFunction);
};

application.use = function use(this: ExpressApp, ...args: unknown[]): ExpressApp {
  const { path, fns } = splitUseArgs(args);
  if (fns.length === 0) throw new TypeError('app.use() requires a middleware function');
  const router = this.lazyrouter();
  for (const fn of fns) {
    const sub = fn as ExpressApp | undefined;
    if (!sub || typeof sub.handle !== 'function' || typeof sub.set !== 'function') {
      router.use(path, fn);
      continue;
    }
    sub.mountpath = path as string;
    sub.parent = this;
    router.use(path, function mountedApp(req: Request, res: Response, next: NextFunction) {
      const parentApp = req.app as unknown as ExpressApp;
      sub.handle(req, res, (err) => {
        // Back in the parent: its prototypes and settings apply again.
        Object.setPrototypeOf(req, parentApp.request);
        Object.setPrototypeOf(res, parentApp.response);
        req.app = parentApp;
        next(err);
      });
    });
    sub.emit('mount', this);
  }
  return this;
};

application.route = function route(this: ExpressApp, path: RoutePath): Route {
  return this.lazyrouter().route(path);
};

application.engine = function engine(this: ExpressApp, ext: string, fn: ViewEngine): ExpressApp {
  if (typeof fn !== 'function') throw new Error('callback function required');
  this.engines[ext[0] === '.' ? ext : '.' + ext] = fn;
  return this;
};

application.param = function param(this: ExpressApp, name: string | string[], fn: ParamCallback): ExpressApp {
  if (Array.isArray(name)) {
    for (const one of name) this.param(one, fn);
    return this;
  }
  this.lazyrouter().param(name, fn);
  return this;
};

application.set = function set(this: ExpressApp, setting: string, value?: unknown): unknown {
  // No rest parameter: responses read settings per request (`etag fn`, `json spaces`).
  if (arguments.length === 1) return readSetting(this.settings, setting);
  this.settings[setting] = value;
  switch (setting) {
    case 'etag':
      this.set('etag fn', compileETag(value));
      break;
    case 'query parser':
      this.set('query parser fn', compileQueryParser(value));
      break;
    case 'trust proxy':
      this.set('trust proxy fn', compileTrust(value));
      Object.defineProperty(this.settings, TRUST_PROXY_DEFAULT, { configurable: true, value: false });
      break;
  }
  return this;
};

application.path = function path(this: ExpressApp): string {
  return this.parent ? this.parent.path() + String(this.mountpath) : '';
};

application.enabled = function enabled(this: ExpressApp, setting: string): boolean {
  return Boolean(this.set(setting));
};

application.disabled = function disabled(this: ExpressApp, setting: string): boolean {
  return !this.set(setting);
};

application.enable = function enable(this: ExpressApp, setting: string): ExpressApp {
  return this.set(setting, true) as ExpressApp;
};

application.disable = function disable(this: ExpressApp, setting: string): ExpressApp {
  return this.set(setting, false) as ExpressApp;
};

/**
 * Own settings first, then a parent app's (mounted apps' settings inherit by prototype); never
 * Object.prototype's members (`constructor`), as in Express 4.
 */
function readSetting(settings: object, setting: string): unknown {
  // Most reads are of a setting the app has, or of one nobody set (`json replacer`): one look-up each.
  const value = (settings as Settings)[setting];
  if (value === undefined) return undefined;
  if (Object.hasOwn(settings, setting)) return value;
  let at: object | null = Object.getPrototypeOf(settings) as object | null;
  while (at && at !== Object.prototype) {
    if (Object.hasOwn(at, setting)) return (at as Settings)[setting];
    at = Object.getPrototypeOf(at) as object | null;
  }
  return undefined;
}

for (const method of methods) {
  if (method === 'get') continue;
  application[method] = function routeMethod(this: ExpressApp, path: RoutePath, ...handlers: unknown[]): unknown {
    const route = this.lazyrouter().route(path);
    (route[method] as AnyFn).apply(route, handlers as never[]);
    return this;
  };
}

// `app.get(setting)` is read per request by responses, so its one-argument form allocates nothing.
application.get = function get(this: ExpressApp, path: RoutePath): unknown {
  if (arguments.length === 1) return readSetting(this.settings, path as string);
  const route = this.lazyrouter().route(path);
  // eslint-disable-next-line prefer-rest-params -- see above
  (route.get as AnyFn).apply(route, Array.prototype.slice.call(arguments, 1) as never[]);
  return this;
};

application.all = function all(this: ExpressApp, path: RoutePath, ...handlers: unknown[]): ExpressApp {
  const route = this.lazyrouter().route(path);
  // Every method, one by one (not route.all), as Express 4 registers app.all.
  for (const method of methods) (route[method] as AnyFn).apply(route, handlers as never[]);
  return this;
};

application.del = deprecate.function(application.delete as AnyFn, 'app.del: Use app.delete instead');

application.render = function render(this: ExpressApp, name: string, options?: unknown, callback?: unknown): void {
  let done = callback as (err: unknown, html?: string) => void;
  let opts = (options ?? {}) as Record<string, unknown>;
  if (typeof options === 'function') {
    done = options as typeof done;
    opts = {};
  }
  const renderOptions: Record<string, unknown> = { ...this.locals };
  if (opts._locals) Object.assign(renderOptions, opts._locals);
  Object.assign(renderOptions, opts);
  if (renderOptions.cache == null) renderOptions.cache = this.enabled('view cache');
  let view = renderOptions.cache ? this.cache[name] : undefined;
  if (!view) {
    const ViewClass = this.get('view') as typeof View;
    view = new ViewClass(name, { defaultEngine: this.get('view engine') as string | undefined, root: this.get('views') as string | string[], engines: this.engines });
    if (!view.path) {
      const root = view.root;
      const dirs = Array.isArray(root) && root.length > 1
        ? `directories "${root.slice(0, -1).join('", "')}" or "${root[root.length - 1]}"`
        : `directory "${String(root)}"`;
      const err = new Error(`Failed to lookup view "${name}" in views ${dirs}`) as Error & { view?: View };
      err.view = view;
      done(err);
      return;
    }
    if (renderOptions.cache) this.cache[name] = view;
  }
  try {
    view.render(renderOptions, done);
  } catch (err) {
    done(err);
  }
};

application.listen = function listen(this: ExpressApp, ...args: unknown[]): http.Server {
  const server = http.createServer({ IncomingMessage: requestClassFor(this), ServerResponse: responseClassFor(this) }, this);
  // roa's turnFlush fast path (on unless ROA_FAST_PATHS turns it off, or node lacks what it relies on).
  if (activeFastPaths().turnFlush) {
    this[TURN_FLUSH] = true;
    server.on('connection', flushPerTurn);
  }
  return (server.listen as (...a: unknown[]) => http.Server)(...args);
};

/** `express.application`: copied onto each app by `express()`. */
export { application };

/** A request entering `app`: the app's prototypes and Express's per-request fields. */
function enterApp(app: ExpressApp, req: Request, res: Response): void {
  const requestProto = app.request;
  if (Object.getPrototypeOf(req) !== requestProto) {
    // A plain node request gets roa's per-request fields once (its methods rely on them).
    if (!(req instanceof Request) && requestProto instanceof Request) initRequest(req);
    Object.setPrototypeOf(req, requestProto);
  }
  if (Object.getPrototypeOf(res) !== app.response) {
    if (!(res instanceof Response)) (res as { locals?: unknown }).locals ??= Object.create(null);
    Object.setPrototypeOf(res, app.response);
  }
  req.res = res;
  (res as { req: unknown }).req = req;
  req.app = app as unknown as Request['app'];
  if (!req.originalUrl) req.originalUrl = req.url ?? '/';
  if (app.settings['x-powered-by']) res.setHeader('X-Powered-By', 'Express');
  // req.query is parsed when first read, by the app's `query parser` (express/request).
}

/** The app's last resort (finalhandler, as Express). */
function finalOut(app: ExpressApp): (err: unknown, req: Request, res: Response) => void {
  const onerror = (err: Error): void => {
    if (app.get('env') !== 'test') console.error(err.stack || err.toString());
  };
  return (err, req, res) => finalhandler(req, res, { env: app.get('env') as string, onerror })(err);
}

/**
 * A request class whose instances are born with `app.request` as prototype (and roa's fields):
 * the class `app.request` belongs to (express/index makes one per app), else a constructor built
 * around it (slower: V8 constructs through a runtime call).
 */
function requestClassFor(app: ExpressApp): typeof IncomingMessage {
  return classFor(app.request) as typeof IncomingMessage;
}

function responseClassFor(app: ExpressApp): typeof ServerResponse {
  return classFor(app.response) as unknown as typeof ServerResponse;
}

type AnyClass = new (...args: unknown[]) => object;

function classFor(proto: object): AnyClass {
  const own = (proto as { constructor: AnyClass }).constructor;
  if (typeof own === 'function' && own.prototype === proto) return own;
  const Base = own;
  function Derived(this: unknown, ...args: unknown[]): object {
    return Reflect.construct(Base, args, Derived) as object;
  }
  Derived.prototype = proto;
  return Derived as unknown as AnyClass;
}

/**
 * `app.request` / `app.response`: a subclass's prototype per app when the base is a class's
 * prototype (so `listen()` servers construct them directly), else `Object.create(base)`; either
 * way with `app` on it, as Express 4's.
 */
export function appPrototype(base: object, app: ExpressApp): object {
  const appField = { configurable: true, enumerable: true, writable: true, value: app };
  const Base = (base as { constructor?: unknown }).constructor;
  if (typeof Base === 'function' && Base.prototype === base) {
    const AppClass = class extends (Base as AnyClass) {};
    Object.defineProperty(AppClass.prototype, 'app', appField);
    return AppClass.prototype;
  }
  return Object.create(base, { app: appField }) as object;
}
