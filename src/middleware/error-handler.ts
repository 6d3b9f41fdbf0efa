/**
 * @module middleware/error-handler
 * errorHandler(): the development error reporter. Logs the error with its stack and answers with
 * an HTML page, JSON or text, as the client prefers. In production no stack leaves the process.
 */
import { STATUS_CODES } from 'node:http';
import { HttpError, statusOf } from '../errors/http-error.js';
import { negotiate } from '../http/accepts.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

export interface ErrorHandlerOptions {
  /** `production` hides stacks (default NODE_ENV or development). */
  env?: string;
  /** Where to log (default console.error). Request headers are never logged: they carry credentials. */
  log?: (err: unknown, message: string) => void;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/**
 * @example
 *   app.use(errorHandler())   // last, after routes
 */
export function errorHandler(options: ErrorHandlerOptions = {}) {
  const log = options.log ?? ((err: unknown) => console.error(err instanceof Error ? err.stack : err));
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    const production = (options.env ?? process.env.NODE_ENV ?? 'development') === 'production';
    log(err, `${req.method} ${(req.originalUrl || req.url || '').split('?')[0]}`);
    if (res.headersSent) {
      next(err);
      return;
    }
    const status = statusOf(err);
    const exposed = err instanceof HttpError ? err.expose : status < 500;
    const message = err instanceof Error && (exposed || !production) ? err.message : STATUS_CODES[status] ?? 'Error';
    const stack = !production && err instanceof Error ? err.stack ?? message : undefined;
    res.statusCode = status;
    if (err instanceof HttpError) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
    const accept = req.headers.accept ?? '*/*';
    const type = negotiate(accept, ['text/html', 'application/json', 'text/plain']);
    let body: string;
    if (type === 'text/html') {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${status} ${escapeHtml(STATUS_CODES[status] ?? 'Error')}</title></head>`
        + `<body><h1>${status} ${escapeHtml(message)}</h1>${stack ? `<pre>${escapeHtml(stack)}</pre>` : ''}</body></html>`;
    } else if (type === 'application/json') {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      body = JSON.stringify({ error: stack ? { message, stack } : { message } });
    } else {
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      body = stack ?? message;
    }
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.method === 'HEAD') res.end();
    else res.end(body);
  };
}
