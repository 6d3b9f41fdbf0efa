import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from '../helpers/node-test.js';
import { roa, roaRunning, stop } from '../helpers/roa-cli.js';

const SERVICE = /service on http:\/\/127\.0\.0\.1:(\d+)/;
const BOTH = /service on http:\/\/127\.0\.0\.1:(\d+)[\s\S]*caching gateway on http:\/\/127\.0\.0\.1:(\d+)/;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request whose body goes out in `chunks` pieces `gapMs` apart (a slow upload); `stallAfter`
 * pieces, if given, and the rest never comes.
 */
function trickle(port: number, method: string, path: string, body: string, opts: { chunks?: number; gapMs?: number; stallAfter?: number; auth?: string } = {}): Promise<Reply> {
  const chunks = opts.chunks ?? 1;
  const size = Math.ceil(body.length / chunks);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { accept: 'application/json', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...(opts.auth ? { authorization: opts.auth } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    let i = 0;
    const next = (): void => {
      if (opts.stallAfter !== undefined && i >= opts.stallAfter) return;
      const piece = body.slice(i * size, (i + 1) * size);
      i++;
      if (i >= chunks) req.end(piece);
      else {
        req.write(piece);
        setTimeout(next, opts.gapMs ?? 0);
      }
    };
    next();
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
  });
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** A server answering every request after `delayMs` (a slow purge node, a slow origin). */
async function slowServer(delayMs: number): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(`slow ${req.url}`), delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

const article = (title: string): string => JSON.stringify({ title, price: { amount: '1.50', currency: 'eur' } });

describe('graceful shutdown (roa serve, roa gateway)', () => {
  let dir: string;
  let db: string;
  const auth = 'Basic ' + Buffer.from('ed:ed-password-1').toString('base64');
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'roa-shutdown-'));
    db = join(dir, 'roa.db');
    const added = roa(['user', 'add', 'ed', '--role', 'editor', '--password', 'ed-password-1', '--db', db]);
    assert.equal(added.status, 0, added.stderr);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('roa serve: SIGTERM lets slow uploads and slow responses finish on both ports, then exits 0 with two log lines', async () => {
    const purgeNode = await slowServer(1500);
    const gatewayPort = await freePort();
    const { child, match, output } = await roaRunning(['serve', '--port', '0', '--gateway-port', String(gatewayPort), '--db', db, '--purge', `http://127.0.0.1:${purgeNode.port}`, '--purge-timeout', '5000', '--purge-delay', '0', '--secret-key-file', join(dir, 'secret.key')], BOTH);
    try {
      const service = Number(match[1]);
      const gateway = Number(match[2]);
      const inFlight = [
        trickle(service, 'PUT', '/articles/upload-service', article('upload via service'), { chunks: 6, gapMs: 300, auth }),
        trickle(gateway, 'PUT', '/articles/upload-gateway', article('upload via gateway'), { chunks: 6, gapMs: 300, auth }),
        trickle(service, 'PUT', '/articles/purged-service', article('slow purge via service'), { auth }),
        trickle(gateway, 'PUT', '/articles/purged-gateway', article('slow purge via gateway'), { auth }),
      ];
      await wait(500);
      const code = exited(child);
      child.kill('SIGTERM');
      const replies = await Promise.all(inFlight);
      const titles = ['upload via service', 'upload via gateway', 'slow purge via service', 'slow purge via gateway'];
      replies.forEach((r, i) => {
        assert.equal(r.status, 201, `${titles[i]}: ${r.body}`);
        assert.equal((JSON.parse(r.body) as { title: string }).title, titles[i]);
      });
      assert.equal(await code, 0, output());
      assert.equal(output().match(/shutdown started/g)?.length, 1, output());
      assert.equal(output().match(/shutdown complete/g)?.length, 1, output());
      assert.ok(purgeNode.seen.some((s) => s.startsWith('PURGE ')), 'the writes purged the slow node');
    } finally {
      await stop(child);
      purgeNode.server.close();
    }
  });

  it('roa serve: --shutdown-timeout cuts an upload that never finishes and still exits 0, saying what it cut', async () => {
    const { child, match, output } = await roaRunning(['serve', '--port', '0', '--gateway-port', '0', '--db', db, '--shutdown-timeout', '1s', '--secret-key-file', join(dir, 'secret.key')], SERVICE);
    try {
      const stalled = trickle(Number(match[1]), 'PUT', '/articles/stalled', article('never'), { chunks: 4, gapMs: 50, stallAfter: 1, auth }).then(
        () => 'answered',
        () => 'cut',
      );
      await wait(300);
      const code = exited(child);
      const t0 = performance.now();
      child.kill('SIGTERM');
      assert.equal(await code, 0, output());
      const took = performance.now() - t0;
      assert.ok(took >= 900, `waited for the timeout (${took} ms)`);
      assert.ok(took < 8000, `but not much longer (${took} ms)`);
      assert.equal(await stalled, 'cut');
      const done = /\{[^\n]*shutdown complete[^\n]*\}/.exec(output());
      assert.ok(done, output());
      assert.deepEqual((JSON.parse(done[0]) as { cut: unknown }).cut, { gateway: 0, service: 1 });
    } finally {
      await stop(child);
    }
  });

  it('roa gateway: SIGTERM lets a request to a slow upstream finish, then exits 0', async () => {
    const origin = await slowServer(1500);
    const { child, match, output } = await roaRunning(['gateway', '--upstream', `http://127.0.0.1:${origin.port}`, '--port', '0'], /roa gateway on http:\/\/127\.0\.0\.1:(\d+)/);
    try {
      const reply = trickle(Number(match[1]), 'GET', '/slow', '');
      await wait(400);
      const code = exited(child);
      child.kill('SIGTERM');
      const r = await reply;
      assert.equal(r.status, 200);
      assert.equal(r.body, 'slow /slow');
      assert.equal(await code, 0, output());
      assert.match(output(), /shutdown started/);
      assert.match(output(), /shutdown complete/);
    } finally {
      await stop(child);
      origin.server.close();
    }
  });

  it('refuses a --shutdown-timeout (or ROA_SHUTDOWN_TIMEOUT) that is not a duration, or past an hour, with one clear line', () => {
    for (const [args, env] of [[['--shutdown-timeout', 'soon'], {}], [['--shutdown-timeout', '3601'], {}], [[], { ROA_SHUTDOWN_TIMEOUT: '-1' }]] as const) {
      const r = roa(['serve', '--port', '0', '--gateway-port', '0', '--db', ':memory:', ...args], env);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, /--shutdown-timeout \(ROA_SHUTDOWN_TIMEOUT\) must be seconds/);
    }
    const g = roa(['gateway', '--upstream', 'http://127.0.0.1:1', '--port', '0', '--shutdown-timeout', '10m']);
    assert.equal(g.status, 1);
    assert.match(g.stderr, /--shutdown-timeout/);
  });
});
