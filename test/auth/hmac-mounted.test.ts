/** @module test/auth/hmac-mounted — hmac through the real app: mounted routers, body parsers, error rendering. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from '../helpers/node-test.js';
import { createApp } from '../../src/app.js';
import { Authenticator } from '../../src/auth/authenticator.js';
import { HmacScheme } from '../../src/auth/hmac.js';
import { MemoryNonceStore } from '../../src/auth/memory-nonce-store.js';
import { generateHmacSecret, sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';
import { signRequest } from '../../src/client/index.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { json } from '../../src/middleware/json.js';
import { methodOverride } from '../../src/middleware/method-override.js';
import { Router } from '../../src/router/router.js';
import { MemoryAuthStore } from './memory-store.js';

describe('hmac under a mounted router', () => {
  const box = new SecretBox(randomBytes(32));
  const secret = generateHmacSecret();
  let server: Server;
  let url: string;

  before(async () => {
    const store = new MemoryAuthStore();
    await store.createUser({ name: 'ann', role: 'admin', passwordHash: 'x', hmacSecret: sealHmacSecret(box, 'ann', secret) });
    const auth = new Authenticator([new HmacScheme({ store, box, nonces: new MemoryNonceStore(), production: true })]);
    const api = Router();
    api.use(methodOverride());
    api.use(auth.middleware());
    api.put('/articles', (req: Request, res: Response) => {
      res.json({ method: req.method, originalMethod: req.originalMethod, caller: (req.locals.caller as { name: string }).name });
    });
    api.use(json());
    api.post('/articles', (req: Request, res: Response) => {
      res.status(201).json({ caller: req.locals.caller, body: req.body, baseUrl: req.baseUrl, url: req.url });
    });
    const app = createApp({ env: 'production' });
    app.use('/api', api);
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('verifies the full original target, and the body parser still sees the body read for Content-Digest', async () => {
    const body = JSON.stringify({ title: 'x' });
    const headers = signRequest({ method: 'POST', target: '/api/articles?draft=1', body, user: 'ann', secret });
    const r = await fetch(url + '/api/articles?draft=1', { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
    assert.equal(r.status, 201);
    const out = (await r.json()) as { caller: { name: string }; body: unknown; baseUrl: string };
    assert.equal(out.caller.name, 'ann');
    assert.deepEqual(out.body, { title: 'x' });
    assert.equal(out.baseUrl, '/api');
  });
  it('refuses a signature over the path relative to the mount point', async () => {
    const headers = signRequest({ method: 'POST', target: '/articles', body: '{}', user: 'ann', secret });
    const r = await fetch(url + '/api/articles', { method: 'POST', body: '{}', headers: { ...headers, 'content-type': 'application/json' } });
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('www-authenticate'), 'hmac realm="roa"');
  });
  it('verifies the method on the wire when methodOverride ran first', async () => {
    const headers = signRequest({ method: 'POST', target: '/api/articles', body: '{}', user: 'ann', secret });
    const r = await fetch(url + '/api/articles', {
      method: 'POST',
      body: '{}',
      headers: { ...headers, 'content-type': 'application/json', 'x-http-method-override': 'PUT' },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { method: 'PUT', originalMethod: 'POST', caller: 'ann' });
  });
  it('answers 400 for a tampered body', async () => {
    const headers = signRequest({ method: 'POST', target: '/api/articles', body: '{"a":1}', user: 'ann', secret });
    const r = await fetch(url + '/api/articles', { method: 'POST', body: '{"a":2}', headers: { ...headers, 'content-type': 'application/json' } });
    assert.equal(r.status, 400);
  });
});
