/**
 * @module test/gateway/tls-clients
 * Clients for the gateway over TLS that verify its certificate against the test CA: node:http2
 * (ALPN h2) and node:https restricted to ALPN http/1.1.
 */
import { connect, type ClientHttp2Session, type IncomingHttpHeaders as H2Headers, type OutgoingHttpHeaders as H2OutgoingHeaders } from 'node:http2';
import { request } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface TlsReply {
  status: number;
  headers: IncomingHttpHeaders | H2Headers;
  body: string;
  /** The protocol ALPN chose for the connection. */
  alpn: string | false;
  /** Interim (1xx) responses, in order. */
  interim: { status: number; headers: Record<string, unknown> }[];
}

/** Opens an HTTP/2 session to `url` and waits for the handshake. */
export function h2Session(url: string, ca: Buffer): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(url, { ca });
    session.once('error', reject);
    session.once('connect', () => {
      session.off('error', reject);
      session.on('error', () => {});
      resolve(session);
    });
  });
}

/** One request on an HTTP/2 session; `body` undefined ends the stream with the HEADERS frame. */
export function h2Send(session: ClientHttp2Session, path: string, init: { method?: string; headers?: H2OutgoingHeaders; body?: string } = {}): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const headers: H2OutgoingHeaders = { ':method': init.method ?? 'GET', ...(init.method === 'CONNECT' ? {} : { ':path': path }), ...init.headers };
    const stream = session.request(headers, { endStream: init.body === undefined });
    const interim: TlsReply['interim'] = [];
    const timer = setTimeout(() => stream.close(), 10_000);
    stream.on('headers', (h) => interim.push({ status: Number(h[':status']), headers: { ...h } }));
    stream.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    stream.on('response', (h) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        clearTimeout(timer);
        resolve({ status: Number(h[':status']), headers: h, body: Buffer.concat(chunks).toString(), alpn: session.alpnProtocol ?? false, interim });
      });
    });
    if (init.body !== undefined) stream.end(init.body);
  });
}

/** One request over HTTPS/1.1 (ALPN offering http/1.1 only), on a fresh connection. */
export function h1Send(
  base: { host: string; port: number },
  ca: Buffer,
  path: string,
  init: { method?: string; headers?: OutgoingHttpHeaders; body?: string } = {},
): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const headers = init.body === undefined ? init.headers : { 'Content-Length': String(Buffer.byteLength(init.body)), ...init.headers };
    const req = request({ host: base.host, port: base.port, method: init.method ?? 'GET', path, headers, ca, servername: 'localhost', ALPNProtocols: ['http/1.1'], agent: false });
    const interim: TlsReply['interim'] = [];
    req.setTimeout(10_000, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.on('information', (info) => interim.push({ status: info.statusCode, headers: info.headers }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString(), alpn: (res.socket as TLSSocket).alpnProtocol, interim }));
      res.on('error', reject);
    });
    req.end(init.body);
  });
}
