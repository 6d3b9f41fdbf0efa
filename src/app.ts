/**
 * @module app
 * createApp: an Express-4-shaped application that is also a node request listener.
 */
import http, { type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Http2SecureServer, SecureServerOptions } from 'node:http2';
import { adoptRequest, dispatchAwaitingContinue, drainWhenAnswered, Request, type NextFunction } from './http/request.js';
import { FastRequest } from './http/fast-request.js';
import { activeFastPaths, resolveFastPaths, type FastPaths, type FastPathsOption } from './http/fast-paths.js';
import { answerClientError, refuseConnect } from './http/client-error.js';
import { hostProblem } from './http/host.js';
import { createAppSecureServer } from './http/secure-server.js';
import { compileTrust, TRUST_FN_SETTING } from './http/trust-proxy.js';
import { checkMaxDrainBytes, closeUnlessRead } from './http/unread-body.js';
import { HttpError } from './errors/http-error.js';
import { adoptResponse, FastResponse, Response } from './http/response.js';
import { finalHandler } from './final-handler.js';
import { flushPerTurn, requestStarted } from './http/turn-flush.js';
import { ROUTE_METHODS } from './router/methods.js';
import type { ErrorRequestHandler, RequestHandler } from './router/handler.js';
import type { RoutePath } from './router/path.js';
import type { Route } from './router/route.js';
import { Router, RouterCore, type RouterOptions } from './router/router.js';

export interface AppOptions {
  /** `/foo` and `/foo/` are different routes (default false). */
  strict?: boolean;
  /** Route matching is case-sensitive (default false). */
  caseSensitive?: boolean;
  /** `development` (default: NODE_ENV or development) or `production`: production never sends stacks. */
  env?: string;
  /**
   * The speed tricks that depend on node's private behaviour (http/fast-paths): `false` turns all
   * off, `{ turnFlush: false }` one of them. Default: `ROA_FAST_PATHS` from the environment
   * (`0`, `1`, or a list like `-turnFlush,-outHeaders`), else all on. A trick node does not
   * support is off whatever this says; `app.fastPaths` tells which run.
   */
  fastPaths?: FastPathsOption;
  /**
   * Servers from `listen`/`createServer` write the responses finished in one event-loop turn together
   * at its end (http/turn-flush), default true; false writes each at `res.end()`, as node does.
   * The `turnFlush` fast path under its older name: when given, it decides that one.
   */
  flushPerTurn?: boolean;
  /**
   * When the app is a server's request listener: a response sent before the request's body arrived
   * drains at most this many more body bytes, then cuts the connection (default 64 KiB; http/unread-body).
   */
  maxDrainBytes?: number;
}

export interface App extends Omit<RouterCore, 'get' | 'use' | 'route' | 'handle'> {
  (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  /** `app.get(path, ...handlers)` routes GET; `app.get(name)` reads a setting, as in Express. */
  get(setting: string): unknown;
  get(path: RoutePath, ...handlers: Array<RequestHandler | RequestHandler[]>): App;
  get(path: RoutePath, ...handlers: unknown[]): App;
  settings: Record<string, unknown>;
  locals: Record<string, unknown>;
  /** The fast paths this app runs: wanted (`fastPaths`, `flushPerTurn`, ROA_FAST_PATHS) and detected. */
  readonly fastPaths: FastPaths;
  router: Router;
  set(setting: string, value: unknown): App;
  enabled(setting: string): boolean;
  disabled(setting: string): boolean;
  enable(setting: string): App;
  disable(setting: string): App;
  route(path: RoutePath): Route;
  use(...handlers: Array<RequestHandler | RequestHandler[]>): App;
  use(...handlers: Array<ErrorRequestHandler | ErrorRequestHandler[]>): App;
  use(path: RoutePath, ...handlers: Array<RequestHandler | RequestHandler[]>): App;
  use(path: RoutePath, ...handlers: Array<ErrorRequestHandler | ErrorRequestHandler[]>): App;
  use(...args: unknown[]): App;
  /** Dispatches a request; `callback` (when mounted) receives what the app did not handle. */
  handle(req: IncomingMessage, res: ServerResponse, callback?: NextFunction): void;
  /** Starts an http.Server whose request and response objects are roa's own classes. */
  listen(port?: number, host?: string | (() => void), callback?: () => void): Server;
  /** Creates (without listening) an http.Server for this app. */
  createServer(options?: http.ServerOptions): Server;
  /**
   * Creates (without listening) a TLS server for this app offering HTTP/2 and HTTP/1.1 by ALPN on
   * one port, TLS 1.2 at least (http/secure-server). Over HTTP/2 handlers get requests and
   * responses with the same conveniences (http/http2-messages).
   * @example
   *   app.createSecureServer({ cert, key }).listen(8443)
   */
  createSecureServer(options: SecureServerOptions): Http2SecureServer;
}

/**
 * Creates an application.
 * @example
 *   const app = createApp()
 *   app.get('/hello/:name', (req, res) => res.send(`Hello ${req.params.name}`))
 *   app.listen(3000)
 */
export function createApp(options: AppOptions = {}): App {
  const routerOptions: RouterOptions = { strict: options.strict, caseSensitive: options.caseSensitive };
  const router = Router(routerOptions);
  const env = options.env ?? process.env.NODE_ENV ?? 'development';
  const maxDrainBytes = checkMaxDrainBytes(options.maxDrainBytes);
  const fast = appFastPaths(options);
  const RequestClass = fast.incomingMessage ? FastRequest : Request;
  const ResponseClass = fast.outHeaders ? FastResponse : Response;

  const app = function (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void {
    app.handle(req, res, next);
  } as App;

  app.router = router;
  (app as { fastPaths: FastPaths }).fastPaths = fast;
  app.settings = { env, strict: router.strict, 'case sensitive routing': router.caseSensitive };
  app.locals = { settings: app.settings };

  // One final handler per app (the router passes req and res), not a closure per request.
  const appFinal = (err: unknown, req: Request, res: Response): void => finalHandler(req, res, err, app.settings.env === 'production');

  app.handle = (rawReq, rawRes, callback) => {
    if (fast.turnFlush) requestStarted();
    const req = adoptRequest(rawReq, RequestClass);
    const res = adoptResponse(rawRes, ResponseClass);
    req.res = res;
    if (!req.originalUrl) req.originalUrl = req.url ?? '/';
    if (callback === undefined) {
      req.app = app;
      // The app is the server's listener here (not mounted): the message-level rules apply.
      const hostError = hostProblem(req);
      if (hostError !== undefined) {
        // RFC 9112 §3.2: 400; the connection closes, as the message may not mean what it seems
        // (HTTP/1.1: an HTTP/2 response drops the field, http/http2-messages).
        appFinal(new HttpError(400, hostError, { code: 'ROA_ERR_INVALID_HOST', headers: { Connection: 'close' } }), req, res);
        return;
      }
      // Bounding an unread body keeps an HTTP/1.1 connection usable; an HTTP/2 stream has its own
      // flow control and its unread rest is refused by node with the stream, not the connection.
      if (req.httpVersionMajor !== 2) {
        closeUnlessRead(req, res, maxDrainBytes);
        drainWhenAnswered(req, res);
      }
      router.handle(req, res, appFinal);
      return;
    }
    // Mounted in another app: this app's settings apply inside it, the parent's again after.
    const parentApp = req.app;
    req.app = app;
    router.handle(req, res, (err: unknown) => {
      req.app = parentApp;
      callback(err);
    });
  };

  app.set = (setting, value) => {
    app.settings[setting] = value;
    if (setting === 'strict routing' || setting === 'strict') router.strict = value === true;
    if (setting === 'case sensitive routing') router.caseSensitive = value === true;
    // Compiled once here, as Express does, so `req.ip` never parses the setting and a malformed
    // address fails now rather than per request (http/trust-proxy).
    if (setting === 'trust proxy') app.settings[TRUST_FN_SETTING] = compileTrust(value);
    return app;
  };
  app.enabled = (setting) => Boolean(app.settings[setting]);
  app.disabled = (setting) => !app.settings[setting];
  app.enable = (setting) => app.set(setting, true);
  app.disable = (setting) => app.set(setting, false);

  app.use = ((...args: unknown[]) => {
    router.use(...args);
    return app;
  }) as App['use'];
  app.route = (path) => router.route(path);

  for (const method of [...ROUTE_METHODS, 'all']) {
    const register = (router as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!;
    (app as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      if (method === 'get' && args.length === 1 && typeof args[0] === 'string') return app.settings[args[0]];
      register.apply(router, args);
      return app;
    };
  }

  app.createServer = (serverOptions = {}) => {
    const server = http.createServer(
      // Host is checked by `app.handle`, which answers with a problem rather than node's bare 400.
      { requireHostHeader: false, ...serverOptions, IncomingMessage: RequestClass, ServerResponse: ResponseClass as unknown as typeof ServerResponse },
      app,
    );
    if (fast.turnFlush) server.on('connection', flushPerTurn);
    server.on('checkContinue', dispatchAwaitingContinue);
    server.on('clientError', answerClientError);
    server.on('connect', refuseConnect);
    return server as unknown as Server;
  };

  app.createSecureServer = (serverOptions) =>
    createAppSecureServer(app, { Request: RequestClass, Response: ResponseClass, turnFlush: fast.turnFlush }, serverOptions);

  app.listen = (port = 0, host?: string | (() => void), callback?: () => void) => {
    const server = app.createServer();
    if (typeof host === 'function') server.listen(port, host);
    else if (host === undefined) server.listen(port, callback);
    else server.listen(port, host, callback);
    return server;
  };

  return app;
}

/** The app's fast paths: `fastPaths` (or ROA_FAST_PATHS), with `flushPerTurn`, when given, deciding `turnFlush`. */
function appFastPaths(options: AppOptions): FastPaths {
  const wanted = resolveFastPaths(options.fastPaths);
  return activeFastPaths(options.flushPerTurn === undefined ? wanted : { ...wanted, turnFlush: options.flushPerTurn });
}
