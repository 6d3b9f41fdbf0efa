/**
 * @module test/gateway/gateway-helpers
 * Loopback origins, a gateway in front of them, and a raw node:http client for the gateway tests.
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/index.js';

export interface Origin {
  url: string;
  port: number;
  /** Requests the origin has seen, in order. */
  seen: { method: string; url: string; headers: IncomingHttpHeaders; rawHeaders: string[]; body: string }[];
  close(): Promise<void>;
}

export type OriginHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Starts an origin on 127.0.0.1:0 that records each request (with its body) before answering. */
export async function startOrigin(handler: OriginHandler): Promise<Origin> {
  const seen: Origin['seen'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface Running {
  gateway: Gateway;
  base: { host: string; port: number };
  close(): Promise<void>;
}

/** A gateway on 127.0.0.1:0 in front of `upstream`. */
export async function startGateway(upstream: string, opts: Partial<GatewayOptions> = {}): Promise<Running> {
  const gateway = createGateway({ upstream, normaliseAccept: false, ...opts });
  const addr = await gateway.listen(0, '127.0.0.1');
  return { gateway, base: { host: '127.0.0.1', port: addr.port }, close: () => gateway.close() };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/** One request through node:http (no client-side caching, no added headers), bounded by a timeout. */
export function send(
  base: { host: string; port: number },
  path: string,
  init: { method?: string; headers?: OutgoingHttpHeaders | string[]; body?: string; timeoutMs?: number } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let headers = init.headers ?? {};
    // node frames a DELETE/OPTIONS body only when told its length.
    if (init.body !== undefined && !Array.isArray(headers)) headers = { ...headers, 'Content-Length': String(Buffer.byteLength(init.body)) };
    const req = request({ host: base.host, port: base.port, method: init.method ?? 'GET', path, headers, agent: false });
    req.setTimeout(init.timeoutMs ?? 5000, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.end(init.body);
  });
}

/** RFC 9110 §5.6.7 IMF-fixdate for `ms`. */
export function httpDate(ms = Date.now()): string {
  return new Date(ms).toUTCString();
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface RawReply {
  /** Status of the first response on the connection (0 when none came). */
  status: number;
  /** Everything the gateway wrote before closing (or before the deadline). */
  text: string;
  /** The first response's content, de-chunked when it came chunked. */
  body: string;
}

/** The content of the first response in `text` (by Content-Length, chunked, or to the end). */
function firstBody(text: string): string {
  const at = text.indexOf('\r\n\r\n');
  if (at < 0) return '';
  const head = text.slice(0, at);
  let rest = text.slice(at + 4);
  if (/^transfer-encoding:[^\r]*chunked/im.test(head)) {
    let out = '';
    for (;;) {
      const eol = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, eol), 16);
      if (eol < 0 || !(size > 0)) return out;
      out += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 4 + size);
    }
  }
  const length = /^content-length:\s*(\d+)/im.exec(head);
  return length === null ? rest : rest.slice(0, Number(length[1]));
}

/**
 * Writes `bytes` on a fresh connection and collects what comes back until the peer closes it, or
 * until `deadlineMs` (generous: a hung exchange shows as a timed-out reply, never a hung test).
 * The request should say `Connection: close` so that the gateway ends the exchange.
 */
export function rawExchange(base: { host: string; port: number }, bytes: string | Buffer, deadlineMs = 10_000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(base.port, base.host);
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m === null ? 0 : Number(m[1]), text, body: firstBody(text) });
    };
    const timer = setTimeout(() => socket.destroy(), deadlineMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', done);
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset after the answer (the gateway closing a connection whose body it did not read) is fine.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.write(bytes);
  });
}
