/**
 * @module final-handler
 * What happens when no layer ended the request: 404 for an unmatched path, else the error's
 * status as an RFC 9457 problem. Stacks never leave the process here.
 */
import { STATUS_CODES } from 'node:http';
import { statusOf } from './errors/http-error.js';
import { HttpError } from './errors/http-error.js';
import { sendProblem } from './errors/problem.js';
import type { Request } from './http/request.js';
import type { Response } from './http/response.js';

export function finalHandler(req: Request, res: Response, err: unknown, production: boolean): void {
  if (res.headersSent || res.writableEnded) {
    // Too late for a clean answer: end the connection so the client sees the failure.
    if (err) req.socket.destroy();
    return;
  }
  if (err === undefined || err === null || err === false) {
    const pathname = (req.originalUrl || req.url || '/').split('?')[0];
    sendProblem(req, res, new HttpError(404, `Cannot ${req.method} ${pathname}`, { code: 'ROA_ERR_NOT_FOUND' }), { env: production ? 'production' : 'development' });
    return;
  }
  const status = statusOf(err);
  if (status >= 500 && process.env.NODE_ENV !== 'test') {
    // Unhandled server errors are logged once here; the client gets no stack.
    console.error(err instanceof Error ? err.stack : err);
  }
  const problem = err instanceof HttpError ? err : new HttpError(status, exposedMessage(err, status), {
    headers: headersOf(err),
  });
  sendProblem(req, res, problem, { env: production ? 'production' : 'development' });
}

function exposedMessage(err: unknown, status: number): string {
  if (status < 500 && err instanceof Error) return err.message;
  return STATUS_CODES[status] ?? 'Error';
}

function headersOf(err: unknown): Record<string, string> | undefined {
  if (err !== null && typeof err === 'object' && 'headers' in err) {
    const h = (err as { headers: unknown }).headers;
    if (h !== null && typeof h === 'object') return h as Record<string, string>;
  }
  return undefined;
}
