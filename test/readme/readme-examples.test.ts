/**
 * @module test/readme/readme-examples
 * The README's examples run as written (issue 24 §7): each TypeScript block is extracted, its `roa`
 * imports pointed at src/, and run against real servers on port 0; the curl tour runs in bash
 * against the real service and its gateway. Only the port, the base URL and the password the
 * README leaves to the reader are substituted, and each substitution must find its text, so a
 * README edit that breaks an example breaks this test.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from '../helpers/node-test.js';
import { sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { send, startTestService, type TestService } from '../helpers/service.js';
import { skipOrFail } from '../helpers/services.js';

const README = readFileSync('README.md', 'utf8');
const SRC = pathToFileURL(resolve('src/index.ts')).href;
const CLIENT = pathToFileURL(resolve('src/client/index.ts')).href;
const RESOURCES = pathToFileURL(resolve('src/resources/index.ts')).href;

/** The README's fenced blocks in `lang`, in order. */
function blocks(lang: string): string[] {
  return [...README.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]!);
}

/** The one block of `lang` that contains `marker`. */
function block(lang: string, marker: string): string {
  const found = blocks(lang).filter((b) => b.includes(marker));
  assert.equal(found.length, 1, `one ${lang} block in README.md contains ${JSON.stringify(marker)}`);
  return found[0]!;
}

/** `text` with `from` replaced by `to`, failing when `from` is not there (the README changed). */
function replaced(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  assert.notEqual(out, text, `README example no longer contains ${String(from)}`);
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'roa-readme-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `code` to a module of its own and imports it (tsx compiles it). */
async function runModule<T>(name: string, code: string): Promise<T> {
  const file = join(dir, `${name}.mts`);
  writeFileSync(file, code);
  return (await import(pathToFileURL(file).href)) as T;
}

async function listening(server: Server): Promise<string> {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('README: the library example', () => {
  let server: Server;
  let base: string;
  before(async () => {
    let code = replaced(block('ts', 'createApp('), /from 'roa';/, `from '${SRC}';`);
    code = replaced(code, "app.listen(3000, '127.0.0.1');", "export const server = app.listen(0, '127.0.0.1');");
    ({ server } = await runModule<{ server: Server }>('library', code));
    base = await listening(server);
  });
  after(() => close(server));

  it('answers its routes', async () => {
    assert.equal((await send(base, 'GET', '/')).text, 'Hello');
    assert.deepEqual(JSON.parse((await send(base, 'GET', '/users/42')).text), { id: '42' });
    assert.equal((await send(base, 'GET', '/users/abc')).status, 404);
    assert.equal((await send(base, 'GET', '/files/a/b.txt')).text, 'a/b.txt');
    assert.deepEqual(JSON.parse((await send(base, 'GET', '/report.json', { headers: { accept: 'application/json' } })).text), { ok: true });
    assert.equal((await send(base, 'GET', '/report', { headers: { accept: 'application/xml' } })).text, '<ok/>');
    assert.deepEqual(JSON.parse((await send(base, 'POST', '/echo', { headers: { 'content-type': 'application/json' }, body: '{"a":[1]}' })).text), { a: [1] });
    assert.deepEqual(JSON.parse((await send(base, 'GET', '/api/v1/tea')).text), { version: 'v1', name: 'tea' });
    const teapot = await send(base, 'GET', '/teapot');
    assert.equal(teapot.status, 418);
    assert.match(teapot.text, /short and stout/);
  });

  it('runs the shared handler, then the method routes; a form with _method=PUT reaches the PUT route', async () => {
    assert.deepEqual(JSON.parse((await send(base, 'GET', '/articles/1')).text), { title: 'Green tea' });
    assert.equal((await send(base, 'GET', '/articles/2')).status, 404);
    const json = await send(base, 'PUT', '/articles/1', { headers: { 'content-type': 'application/json' }, body: '{"title":"Oolong"}' });
    assert.deepEqual(JSON.parse(json.text), { title: 'Oolong' });
    const form = await send(base, 'POST', '/articles/1', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=PUT&title=Sencha' });
    assert.equal(form.status, 200, form.text);
    assert.deepEqual(JSON.parse((await send(base, 'GET', '/articles/1')).text), { title: 'Sencha' });
  });

  it('refuses the same form posted from another origin', async () => {
    const forged = await send(base, 'POST', '/articles/1', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: '_method=PUT&title=Loot',
    });
    assert.equal(forged.status, 403);
    assert.deepEqual(JSON.parse((await send(base, 'GET', '/articles/1')).text), { title: 'Sencha' });
  });
});

describe('README: the resource example', () => {
  it('serves a note through resourceHandler (given an app, an authenticator, a store and a check)', async () => {
    const given = [
      `import { createApp, Authenticator } from '${SRC}';`,
      'const app = createApp();',
      'const authenticator = new Authenticator([]);',
      "const stored = { id: '7', owner: 'ann', text: 'hello', hash: 'n7', updatedAt: new Date(0) };",
      "const notes = { get: async (id: string) => (id === '7' ? stored : undefined), put: async () => ({ status: 'missing' }), delete: async () => 'missing' };",
      'const checkNote = (body: unknown) => body;',
    ].join('\n');
    const code = replaced(block('ts', 'resourceHandler('), /from 'roa\/resources';/, `from '${RESOURCES}';`);
    const { server } = await runModule<{ server: Server }>('resource', `${given}\n${code}\nexport const server = app.listen(0, '127.0.0.1');\n`);
    try {
      const base = await listening(server);
      const note = await send(base, 'GET', '/notes/7', { headers: { accept: 'application/json' } });
      assert.equal(note.status, 200, note.text);
      assert.deepEqual(JSON.parse(note.text), JSON.parse(JSON.stringify({ id: '7', owner: 'ann', text: 'hello', hash: 'n7', updatedAt: new Date(0) })));
      assert.ok(note.headers.etag);
      assert.equal((await send(base, 'GET', '/note/8')).status, 404);
      assert.equal((await send(base, 'DELETE', '/note/7')).status, 401, 'writing needs a caller');
    } finally {
      await close(server);
    }
  });
});

describe('README: against the service', () => {
  let svc: TestService;
  const serverKey = randomBytes(32);
  const hanaSecret = randomBytes(24).toString('base64url');
  const alicePassword = 'alice-tour-password';
  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral', serverKey });
    const store = svc.running.store;
    await store.createUser({ name: 'alice', role: 'editor', passwordHash: await hashPassword(alicePassword), hmacSecret: null });
    await store.createUser({ name: 'hana', role: 'editor', passwordHash: await hashPassword('hana-password'), hmacSecret: sealHmacSecret(new SecretBox(serverKey), 'hana', hanaSecret) });
  });
  after(() => svc.close());

  // The tour first: it starts from an empty database, as the README's comments assume.
  it('runs the curl tour through the gateway: each step answers the status its comment gives', async (t) => {
    if (spawnSync('curl', ['--version'], { stdio: 'ignore' }).status !== 0) return skipOrFail(t, 'no curl on PATH');
    let tour = block('sh', '# Create with POST');
    tour = replaced(tour, /^A=\S+/m, `A=${svc.gatewayBase}`);
    tour = replaced(tour, /^U=\S+/m, `U=alice:${alicePassword}`);
    // Not spawnSync: the service answering curl runs in this process.
    const run = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile('bash', ['-e', '-c', tour.replaceAll('curl -i', 'curl -sS -i')], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr })));
    });
    const statuses = [...run.stdout.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    // POST 201, PUT 201, GET XML, GET JSON, If-None-Match (a placeholder: 200), stale If-Match 412,
    // OPTIONS anonymous and logged in, the list, DELETE 204, then 404.
    assert.deepEqual(statuses, [201, 201, 200, 200, 200, 412, 200, 200, 200, 204, 404], run.stdout);
    assert.match(run.stdout, /^Location: \/article\/1\r?$/m);
    assert.match(run.stdout, /^Allow: HEAD, GET, OPTIONS\r?$/m);
    assert.match(run.stdout, /^Allow: HEAD, GET, OPTIONS, PUT, DELETE\r?$/m);
  });

  it('runs the browsable API examples: page 200, sign-in 401 with a Basic challenge, form 303, cross-site form 403', async (t) => {
    if (spawnSync('curl', ['--version'], { stdio: 'ignore' }).status !== 0) return skipOrFail(t, 'no curl on PATH');
    let code = block('sh', '# The browsable API from the command line');
    code = replaced(code, /^A=\S+/m, `A=${svc.gatewayBase}`);
    code = replaced(code, /^U=\S+/m, `U=alice:${alicePassword}`);
    const run = await new Promise<{ stdout: string }>((resolve, reject) => {
      execFile('bash', ['-e', '-c', code.replaceAll('curl -i', 'curl -sS -i')], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout })));
    });
    const statuses = [...run.stdout.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    assert.deepEqual(statuses, [200, 401, 303, 403], run.stdout);
    assert.match(run.stdout, /^Content-Type: text\/html; charset=utf-8\r?$/im);
    assert.match(run.stdout, /^WWW-Authenticate: Basic realm="roa"/im);
    assert.match(run.stdout, /^Location: \/article\/\d+\r?$/m);
    const list = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
    assert.ok(list.text.includes('Genmaicha') && !list.text.includes('Spam'), list.text);
  });

  it('signs a request with signRequest (the HMAC client example)', async () => {
    let code = replaced(block('ts', 'signRequest('), /from 'roa\/client';/, `from '${CLIENT}';\nconst secret = ${JSON.stringify(hanaSecret)};`);
    code = code.replaceAll('http://127.0.0.1:3000', svc.base);
    await runModule('client', `${code}\nexport {};\n`);
    const stored = await send(svc.base, 'GET', '/articles/green-tea', { headers: { accept: 'application/json' } });
    assert.equal(stored.status, 200, stored.text);
    assert.equal(JSON.parse(stored.text).title, 'Tea');
  });
});
