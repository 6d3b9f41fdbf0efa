/**
 * @module router/handler
 * Handler types, and the one place a handler is invoked: sync throws and rejected promises
 * both become `next(err)`.
 */
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

export type { NextFunction };

// Handlers are generic in `req`/`res` so routers can be used with subclasses.
export type RequestHandler<Req = Request, Res = Response> = (req: Req, res: Res, next: NextFunction) => unknown;
export type ErrorRequestHandler<Req = Request, Res = Response> = (err: unknown, req: Req, res: Res, next: NextFunction) => unknown;
export type Handler = RequestHandler | ErrorRequestHandler;
/** A handler argument: one function, or (as Express allows) arrays of them, nested. */
export type HandlerArg = Handler | HandlerArg[];

/** Flattens nested handler arrays and checks every item is a function (at registration, not per request). */
export function flattenHandlers(args: readonly unknown[], where: string): Handler[] {
  const out: Handler[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (typeof value !== 'function') {
      throw new TypeError(`roa: ${where} requires a callback function but got a ${Object.prototype.toString.call(value)}`);
    }
    out.push(value as Handler);
  };
  visit(args);
  return out;
}

function settle(result: unknown, next: NextFunction): void {
  if (result !== null && typeof result === 'object' && typeof (result as Promise<unknown>).then === 'function') {
    (result as Promise<unknown>).then(undefined, (err: unknown) => next(err ?? new Error('Rejected promise')));
  }
}

/** Runs a request handler: a throw or a rejected promise is passed to `next`. */
export function callHandler(fn: Handler, req: Request, res: Response, next: NextFunction): void {
  if (fn.length > 3) {
    // An error handler is skipped while there is no error.
    next();
    return;
  }
  try {
    settle((fn as RequestHandler)(req, res, next), next);
  } catch (err) {
    next(err);
  }
}

/** Runs an error handler (4 parameters); other handlers are skipped while there is an error. */
export function callErrorHandler(fn: Handler, err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (fn.length !== 4) {
    next(err);
    return;
  }
  try {
    settle((fn as ErrorRequestHandler)(err, req, res, next), next);
  } catch (e) {
    next(e);
  }
}
