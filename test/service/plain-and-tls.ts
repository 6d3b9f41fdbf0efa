/**
 * @module test/service/plain-and-tls
 * Serves one app over plain HTTP and over HTTPS at once (127.0.0.1, port 0), with a client that
 * verifies the test CA, for tests that compare the two.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request as undiciRequest } from 'undici';
import type { App } from '../../src/app.js';
import type { TestCertificates } from '../helpers/tls.js';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface PlainAndTls {
  /** http://127.0.0.1:port */
  plain: string;
  /** https://127.0.0.1:port (an IP name in the test certificate) */
  tls: string;
  send(base: string, method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<Reply>;
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Serves `app` over both; `send` verifies the TLS server against `certs.ca`. */
export async function servePlainAndTls(app: App, certs: TestCertificates): Promise<PlainAndTls> {
  const plainServer = http.createServer(app);
  const tlsServer = https.createServer({ cert: certs.cert, key: certs.key }, app);
  const plainPort = await listen(plainServer);
  const tlsPort = await listen(tlsServer);
  const dispatcher = new Agent({ connect: { ca: certs.ca } });
  return {
    plain: `http://127.0.0.1:${plainPort}`,
    tls: `https://127.0.0.1:${tlsPort}`,
    async send(base, method, path, init = {}) {
      const res = await undiciRequest(base + path, { method: method as 'GET', headers: init.headers, body: init.body, dispatcher });
      const text = await res.body.text();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      return { status: res.statusCode, headers, text };
    },
    async close() {
      await dispatcher.close();
      for (const server of [plainServer, tlsServer]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
