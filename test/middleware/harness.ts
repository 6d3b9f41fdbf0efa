/**
 * @module test/middleware/harness
 * Serves an app on port 0 for middleware tests, sends requests through undici, and renders errors
 * as `{ status, code, message }` so tests can assert on the code an error carried.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { request } from 'undici';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { HttpError, statusOf } from '../../src/errors/http-error.js';
import type { NextFunction, Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';

export interface Served {
  base: string;
  port: number;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body when it is JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON the route answered, field by field
  json: any;
}

/** A test app whose routes `setup` adds; errors end in `reportError`. */
export async function serve(setup: (app: App) => void, options: AppOptions = {}): Promise<Served> {
  const app = createApp({ env: 'test', ...options });
  setup(app);
  app.use(reportError);
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Error handler for tests: the status, code and message as JSON, plus the error's headers. */
export function reportError(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const status = statusOf(err);
  if (err instanceof HttpError) res.set(err.headers);
  res.status(status).json({ status, code: err instanceof HttpError ? err.code : undefined, message: (err as Error).message });
}

/** Echoes what the parsers and overrides left on the request. */
export function echo(req: Request, res: Response): void {
  res.json({ method: req.method, originalMethod: req.originalMethod, body: req.body === undefined ? '(undefined)' : req.body });
}

export async function send(
  base: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  const res = await request(base + path, { method: method as 'GET', headers: init.headers, body: init.body });
  const text = await res.body.text();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers, text, json };
}

/** POSTs `body` with a Content-Type. */
export function post(base: string, path: string, type: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return send(base, 'POST', path, { headers: { 'content-type': type, ...headers }, body });
}

/**
 * Writes raw bytes on a socket (for what undici will not send: lying Content-Length, aborts,
 * slow bodies) and resolves with everything the server wrote until it closed or `waitMs` passed.
 */
export function raw(port: number, chunks: Array<string | number>, waitMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(out);
    }, waitMs);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (out += d));
    socket.on('error', (e) => {
      clearTimeout(timer);
      if (out === '') reject(e);
      else resolve(out);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('connect', async () => {
      // A number is a pause in ms; a negative number destroys the socket (a client abort).
      for (const c of chunks) {
        if (typeof c === 'number') {
          if (c < 0) {
            socket.destroy();
            return;
          }
          await new Promise((r) => setTimeout(r, c));
        } else if (!socket.destroyed) {
          socket.write(c, 'latin1');
        }
      }
    });
  });
}
