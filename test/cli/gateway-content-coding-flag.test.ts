/**
 * @module test/cli/gateway-content-coding-flag
 * `roa gateway --content-coding on|off` (GATEWAY_CONTENT_CODING): on (the default) asks the origin for
 * gzip whatever the client accepts, one stored copy for all; off passes the client's Accept-Encoding on.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from '../helpers/node-test.js';
import { send, startOrigin } from '../gateway/gateway-helpers.js';

const cli = (args: string[]): string[] => ['--import', 'tsx', join(process.cwd(), 'src', 'cli.ts'), 'gateway', ...args];

/** Starts `roa gateway` with `args` in front of `upstream`; resolves its port and a stop function. */
async function startCliGateway(upstream: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, cli(['--upstream', upstream, '--port', '0', ...args]), { stdio: ['ignore', 'pipe', 'pipe'], env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`roa gateway did not start: ${out}`));
    }, 60_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /roa gateway on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`roa gateway exited with ${code}: ${out}`)));
  });
  return { port, stop: async () => { child.kill(); await exited; } };
}

describe('roa gateway --content-coding', () => {
  it('asks the origin for gzip by default, and passes the client\'s Accept-Encoding on with off (flag or GATEWAY_CONTENT_CODING)', async () => {
    const seen: string[] = [];
    const origin = await startOrigin((req, res) => {
      seen.push(String(req.headers['accept-encoding']));
      res.writeHead(200, { 'Cache-Control': 'max-age=600', Vary: 'Accept-Encoding', 'Content-Type': 'text/plain' });
      res.end('plain');
    });
    try {
      for (const [args, env, expected] of [
        [[], process.env, 'gzip'],
        [['--content-coding', 'off'], process.env, 'br'],
        [[], { ...process.env, GATEWAY_CONTENT_CODING: 'off' }, 'br'],
      ] as const) {
        seen.length = 0;
        const gw = await startCliGateway(origin.url, [...args], env);
        try {
          const r = await send({ host: '127.0.0.1', port: gw.port }, '/x', { headers: { 'Accept-Encoding': 'br' } });
          assert.equal(r.status, 200);
          assert.deepEqual(seen, [expected], `${args.join(' ')} ${env.GATEWAY_CONTENT_CODING ?? ''}`);
        } finally {
          await gw.stop();
        }
      }
    } finally {
      await origin.close();
    }
  });

  it('refuses a value other than on or off with one line', () => {
    const r = spawnSync(process.execPath, cli(['--upstream', 'http://127.0.0.1:9', '--port', '0', '--content-coding', 'yes']), { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--content-coding must be on or off, got 'yes'/);
  });
});
