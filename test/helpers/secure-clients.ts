/**
 * @module test/helpers/secure-clients
 * Clients for TLS tests that say what they negotiated: HTTP/1.1 through node:https (ALPN
 * `http/1.1` offered) and HTTP/2 through node:http2; both verify the server against `ca`.
 */
import { connect, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { ConnectionOptions, TLSSocket } from 'node:tls';

export interface SecureReply {
  status: number;
  /** Lower-case names; repeated fields joined with ', '. */
  headers: Record<string, string>;
  body: string;
  /** The protocol ALPN chose (`h2`, `http/1.1`), or false without one. */
  alpn: string | false | null;
  /** `100 Continue` arrived before the final response. */
  continued: boolean;
}

export interface SecureRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Sends the body only after `100 Continue` (the request carries `Expect: 100-continue`). */
  waitForContinue?: boolean;
}

function flatten(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** One HTTP/1.1 request over TLS, on its own connection; `tls` overrides the client's TLS options. */
export function h1Request(port: number, ca: Buffer, req: SecureRequest, tls: Pick<ConnectionOptions, 'minVersion' | 'maxVersion' | 'ciphers' | 'ALPNProtocols'> = {}): Promise<SecureReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    if (req.waitForContinue === true) headers.expect = '100-continue';
    let continued = false;
    const r = httpsRequest(
      // node:https passes TLS connection options such as ALPNProtocols through; its type leaves them out.
      { host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers, ca, agent: false, ALPNProtocols: ['http/1.1'], ...tls } as RequestOptions,
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode!,
            headers: flatten(res.headers),
            body: Buffer.concat(chunks).toString(),
            alpn: (res.socket as TLSSocket).alpnProtocol,
            continued,
          });
          // A final status before 100 meant the body was not wanted: it is never sent.
          if (req.waitForContinue === true && !continued) r.destroy();
        });
        res.on('error', reject);
      },
    );
    r.setTimeout(30_000, () => r.destroy(new Error('client timeout')));
    r.on('error', reject);
    if (req.waitForContinue === true) {
      r.on('continue', () => {
        continued = true;
        r.end(req.body);
      });
    } else {
      r.end(req.body);
    }
  });
}

/** An HTTP/2 session to the server, once connected. */
export function h2Session(port: number, ca: Buffer): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(`https://127.0.0.1:${port}`, { ca });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

/** One request on an HTTP/2 session. */
export function h2Request(session: ClientHttp2Session, req: SecureRequest): Promise<SecureReply> {
  return new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { ':method': req.method ?? 'GET', ':path': req.path, ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    if (req.waitForContinue === true) headers.expect = '100-continue';
    const stream = session.request(headers, { endStream: req.body === undefined && req.waitForContinue !== true });
    let continued = false;
    let status = 0;
    let responseHeaders: Record<string, string> = {};
    const chunks: Buffer[] = [];
    stream.on('continue', () => {
      continued = true;
      stream.end(req.body);
    });
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = flatten(h);
      if (req.waitForContinue === true && !continued) stream.end();
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString(), alpn: session.alpnProtocol ?? false, continued }));
    stream.on('error', reject);
    stream.setTimeout(30_000, () => stream.close());
    if (req.body !== undefined && req.waitForContinue !== true) stream.end(req.body);
  });
}
