/**
 * @module middleware/error-handler
 * errorHandler(): the development error reporter. Logs the error with its stack and answers with
 * an HTML page, JSON or text, as the client prefers. In production no stack leaves the process.
 */
import { STATUS_CODES } from 'node:http';
import { statusOf } from '../errors/http-error.js';
import { clientMessage, prepareErrorResponse } from '../errors/problem.js';
import { negotiate } from '../http/accepts.js';
import { pathnameOf, type NextFunction, type Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { escapeMarkup } from '../http/xml-text.js';

export interface ErrorHandlerOptions {
  /**
   * `production` hides stacks and 5xx messages. They are hidden too when the app's env
   * (`app.get('env')`, read per request) or NODE_ENV is `production`: any of them suffices.
   */
  env?: string;
  /**
   * Where to log, given the error and a line `GET /path -> 500` (default: console.error with the
   * stack); `false` logs nothing. Headers and the query string are never part of the line: they
   * carry credentials (Authorization, cookies, `?access_token=`, RFC 6750 §2.3).
   */
  log?: ((err: unknown, message: string) => void) | false;
}

function defaultLog(err: unknown, message: string): void {
  console.error(`${message}\n${err instanceof Error ? err.stack ?? String(err) : String(err)}`);
}

// A browser, `*/*` and a missing Accept all get the page; API clients asking for JSON get JSON.
const OFFERS = ['text/html', 'application/json', 'text/plain'];

/**
 * An error handler (four parameters) to mount last. Status from `err.status`/`err.statusCode`
 * (4xx/5xx, else 500) plus the error's headers (Allow, WWW-Authenticate, ...).
 * - development: the message and the HTML-escaped stack (HTML page, `{ error: { message, stack } }`
 *   JSON, or plain text);
 * - production: no stack; an exposed 4xx shows its message, anything else its reason phrase.
 * When headers are already sent the error goes on to `next(err)`, whose final handler closes the
 * connection.
 * @example
 *   app.use(errorHandler())   // after the routes; follows app.get('env')
 */
export function errorHandler(options: ErrorHandlerOptions = {}) {
  const log = options.log === false ? undefined : options.log ?? defaultLog;
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    const production = hidesInternals(options.env, req);
    const status = statusOf(err);
    log?.(err, `${req.originalMethod ?? req.method} ${pathnameOf(req.originalUrl || req.url || '/')} -> ${status}`);
    if (res.headersSent) {
      next(err);
      return;
    }
    const message = clientMessage(err, status, production);
    const stack = production ? undefined : err instanceof Error ? err.stack ?? message : message;
    prepareErrorResponse(res, status, err);
    res.vary('Accept');
    const type = negotiate(req.headers.accept, OFFERS);
    let body: string;
    if (type === 'text/html') {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      // The page has no script or style of its own; forbid any the error text might smuggle in.
      res.setHeader('Content-Security-Policy', "default-src 'none'");
      body = htmlPage(status, message, stack);
    } else if (type === 'application/json') {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      body = JSON.stringify({ error: stack === undefined ? { message } : { message, stack } });
    } else {
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      body = `${status} ${message}\n${stack === undefined ? '' : `\n${stack}\n`}`;
    }
    res.setHeader('Content-Length', Buffer.byteLength(body));
    if (req.method === 'HEAD') res.end();
    else res.end(body);
  };
}

/**
 * Production if any source says so: the handler's option, the app's env (`createApp({ env })`,
 * `app.set('env', …)`) or NODE_ENV. A development setting in one never reveals what another hides.
 */
function hidesInternals(env: string | undefined, req: Request): boolean {
  return env === 'production' || process.env.NODE_ENV === 'production' || req.app?.get('env') === 'production';
}

function htmlPage(status: number, message: string, stack: string | undefined): string {
  const title = `${status} ${escapeMarkup(STATUS_CODES[status] ?? 'Error')}`;
  return '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>' + title + '</title></head>\n'
    + `<body>\n<h1>${title}</h1>\n<p>${escapeMarkup(message)}</p>\n`
    + (stack === undefined ? '' : `<pre>${escapeMarkup(stack)}</pre>\n`)
    + '</body>\n</html>\n';
}
