/**
 * @module A redis-server of the benchmark's own, on a free loopback port and pinned to a CPU. The system's
 * Redis floats between the two cores and takes its CPU from whichever process it lands beside (on CPU 0 it
 * starved the server under test); pinned beside wrk it behaves like the separate machine it would be.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './routes.mjs';

const START_TIMEOUT_MS = 5000;

/** True when a redis-server binary is on PATH. */
export function haveRedisServer() {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** True when this process may start others under SCHED_FIFO (root, or CAP_SYS_NICE). */
function haveRealtime() {
  return spawnSync('chrt', ['-f', '1', 'true'], { stdio: 'ignore' }).status === 0;
}

/** Resolves once `port` answers PING with PONG; rejects after START_TIMEOUT_MS. */
async function waitForPong(port) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.setTimeout(500, () => (s.destroy(), resolve(false)));
      s.once('error', () => resolve(false));
      s.once('connect', () => s.write('PING\r\n'));
      s.once('data', (d) => (s.destroy(), resolve(String(d).startsWith('+PONG'))));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${START_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts redis-server (no persistence) pinned to `cpu`; killed when this process exits. `realtime`: under
 * SCHED_FIFO (`chrt -f 1`) when this process may, so it is served as soon as a command arrives, never
 * queued behind the other work of its CPU (chrt and taskset exec, so `pid` is redis-server's own).
 * It listens on a loopback port (`url`) and on a Unix socket (`unixUrl`), so a run can compare the two.
 * @returns {Promise<{ url: string, unixUrl: string, pid: number, stop(): void }>}
 */
export async function startRedis({ cpu, realtime = false } = {}) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'roa-bench-redis-'));
  const socketPath = join(dir, 'redis.sock');
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--unixsocket', socketPath, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--logfile', ''];
  let [cmd, argv] = cpu === undefined ? ['redis-server', args] : ['taskset', ['-c', String(cpu), 'redis-server', ...args]];
  if (realtime && haveRealtime()) [cmd, argv] = ['chrt', ['-f', '1', cmd, ...argv]];
  const child = spawn(cmd, argv, { stdio: 'ignore' });
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  // Unreferenced, so the harness exits when its work is done; its exit takes redis-server along.
  child.unref();
  process.on('exit', stop);
  await waitForPong(port);
  return { url: `redis://127.0.0.1:${port}`, unixUrl: `unix://${socketPath}`, pid: child.pid, stop };
}
