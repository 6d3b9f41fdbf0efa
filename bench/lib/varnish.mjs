/**
 * @module Starts varnishd (foreground, loopback, kernel-chosen port) with deploy/varnish/roa.vcl pointed at a
 * backend port. Spawned from a server process, it inherits that process's CPU affinity (taskset) and is one of
 * its descendants, so the harness counts its CPU time with the server's.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const VCL = new URL('../../deploy/varnish/roa.vcl', import.meta.url);
const START_TIMEOUT_MS = 30_000;

/** The shipped VCL with only `backend default`'s host and port changed. */
function renderVcl(backendPort) {
  const src = readFileSync(VCL, 'utf8');
  const re = /(backend\s+default\s*\{)([^}]*)(\})/;
  if (!re.test(src)) throw new Error('roa.vcl: no `backend default { ... }` block');
  return src.replace(re, (_m, open, body, close) =>
    open + body.replace(/\.host\s*=\s*"[^"]*"\s*;/, '.host = "127.0.0.1";').replace(/\.port\s*=\s*"[^"]*"\s*;/, `.port = "${backendPort}";`) + close);
}

function admin(workdir, words) {
  return new Promise((resolve, reject) => {
    execFile('varnishadm', ['-n', workdir, '-t', '5', ...words], { timeout: 10_000 }, (err, out) => (err ? reject(err) : resolve(out)));
  });
}

/**
 * @param {{ backendPort: number, params?: Record<string, string | number> }} o
 * @returns {Promise<{ port: number, url: string, pid: number, stop(): Promise<void> }>}
 */
export async function startVarnish(o) {
  // varnishd started as root drops to the `varnish` user before reading -f: the directory must be readable.
  const root = mkdtempSync(path.join(os.tmpdir(), 'roa-bench-varnish-'));
  chmodSync(root, 0o755);
  const workdir = path.join(root, 'n');
  const vcl = path.join(root, 'roa.vcl');
  writeFileSync(vcl, renderVcl(o.backendPort), { mode: 0o644 });
  // One thread pool: the whole process is pinned to one CPU, like the node servers it is compared with.
  const params = { thread_pools: 1, thread_pool_min: 60, thread_pool_max: 200, vsl_space: '16M', cli_timeout: 60, ...o.params };
  const args = ['-F', '-n', workdir, '-a', '127.0.0.1:0', '-T', '127.0.0.1:0', '-f', vcl, '-s', 'malloc,64m'];
  for (const [k, v] of Object.entries(params)) args.push('-p', `${k}=${v}`);
  const child = spawn('varnishd', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (b) => (output = (output + b).slice(-8000));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exited;
  const exit = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve((exited = code ?? signal)));
    child.once('error', (e) => resolve((exited = e.message)));
  });
  const stop = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exit;
      clearTimeout(t);
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (exited !== undefined) throw new Error(`varnishd exited (${exited}) before listening:\n${output}`);
      if (Date.now() > deadline) throw new Error(`varnishd not listening after ${START_TIMEOUT_MS} ms:\n${output}`);
      try {
        // "a0 127.0.0.1 41327": the address `-a 127.0.0.1:0` was bound to.
        const m = /127\.0\.0\.1\s+(\d+)/.exec(await admin(workdir, ['debug.listen_address']));
        if (m && /running/.test(await admin(workdir, ['status']))) {
          const port = Number(m[1]);
          return { port, url: `http://127.0.0.1:${port}`, pid: child.pid, stop };
        }
      } catch {
        // not up yet
      }
      await sleep(100);
    }
  } catch (e) {
    await stop();
    throw e;
  }
}
