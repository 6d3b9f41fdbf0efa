/**
 * @module test/helpers/server
 * Runs an app (roa or any node request listener, e.g. Express) on 127.0.0.1, port 0, for the
 * length of one callback, and sends raw requests to it with node:http (no path normalisation).
 */
import http, { type RequestListener, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';

/** Something `withServer` can serve: a roa app (has `createServer`) or a plain request listener. */
export type Servable = RequestListener | { createServer(options?: http.ServerOptions): Server };

export interface ServerOptions {
  /** Serve through `http.createServer(app)` even when the app can create its own server. */
  plainNode?: boolean;
  /** Raise node's header limit (16 KB by default) for very long request targets. */
  maxHeaderSize?: number;
}

export interface SimpleResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RequestInit {
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Fail (rather than hang the suite) when no full answer arrives in time (default 10 s). */
  timeoutMs?: number;
}

/** Starts `app` on an ephemeral loopback port, runs `fn(baseUrl)`, and always closes the server. */
export async function withServer<T>(app: Servable, fn: (baseUrl: string) => Promise<T>, options: ServerOptions = {}): Promise<T> {
  const serverOptions: http.ServerOptions = options.maxHeaderSize ? { maxHeaderSize: options.maxHeaderSize } : {};
  const server = typeof app === 'function' && (options.plainNode || !('createServer' in app))
    ? http.createServer(serverOptions, app as RequestListener)
    : (app as { createServer(o?: http.ServerOptions): Server }).createServer(serverOptions);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  try {
    return await fn(`http://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Sends one request and reads the whole answer. `path` goes on the request line as given (node
 * only refuses control characters and non-Latin-1), so malformed escapes reach the app.
 */
export function request(baseUrl: string, method: string, path: string, init: RequestInit = {}): Promise<SimpleResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method,
      path,
      headers: init.headers,
      agent: false,
      insecureHTTPParser: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(init.timeoutMs ?? 10_000, () => {
      req.destroy(new Error(`no answer to ${method} ${path.slice(0, 100)} within ${init.timeoutMs ?? 10_000} ms`));
    });
    req.end(init.body);
  });
}

/** Parses a response body as JSON, failing the test with the raw text when it is not JSON. */
export function json(res: SimpleResponse): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new Error(`expected JSON, got ${res.status}: ${res.text.slice(0, 200)}`);
  }
}

/**
 * Writes `head` (a whole request head with `Connection: close`, e.g. raw UTF-8 bytes in the target)
 * and returns the status of the answer, or 0 when the connection closed without one.
 */
export function rawRequest(baseUrl: string, head: string | Buffer): Promise<number> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'));
      resolve(m ? Number(m[1]) : 0);
    });
    socket.end(head);
  });
}
