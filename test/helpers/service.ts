/**
 * @module test/helpers/service
 * Starts the real article service (SQLite :memory:, port 0) for black-box tests.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as undiciRequest } from 'undici';
import { hashPassword } from '../../src/auth/passwords.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/service.js';
import type { Role } from '../../src/storage/store.js';

export interface TestService {
  running: RunningService;
  base: string;
  gatewayBase: string | undefined;
  addUser(name: string, role: Role, password?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTestService(opts: ServiceOptions = {}): Promise<TestService> {
  const running = await startService({ db: ':memory:', port: 0, gatewayPort: 0, logLevel: 'silent', env: 'development', purgeDelayMs: 0, serverKey: randomBytes(32), ...opts });
  const base = `http://127.0.0.1:${running.address.port}`;
  const gatewayBase = running.gatewayAddress ? `http://127.0.0.1:${running.gatewayAddress.port}` : undefined;
  return {
    running,
    base,
    gatewayBase,
    async addUser(name, role, password = `${name}-secret-pw`) {
      await running.store.createUser({ name, role, passwordHash: await hashPassword(password) });
      return 'Basic ' + Buffer.from(`${name}:${password}`).toString('base64');
    },
    close: () => running.close(),
  };
}

export interface SimpleResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** One request through undici (node's fetch adds Cache-Control: no-cache to conditional requests). */
export async function send(base: string, method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<SimpleResponse> {
  const res = await undiciRequest(base + path, { method: method as 'GET', headers: init.headers, body: init.body });
  const text = await res.body.text();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return { status: res.statusCode, headers, text };
}

/**
 * One request from a chosen local address, on its own connection (Linux loopback answers for the
 * whole of 127/8), for tests that tell clients apart by address.
 */
export function sendFrom(localAddress: string, base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<SimpleResponse> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) h[k] = Array.isArray(v) ? v.join(', ') : String(v);
        resolve({ status: res.statusCode!, headers: h, text: Buffer.concat(chunks).toString() });
      });
    });
    req.setTimeout(30_000, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}
