/**
 * @module test/helpers/redis-server
 * A private redis-server on a loopback port of its own, for tests that stop and restart Redis
 * without disturbing the shared one on 6379 that other tests use. Nothing is persisted.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { freePort } from './ports.js';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  // Last resort when a test failed before stop(): no redis-server outlives the run.
  for (const child of running) child.kill('SIGKILL');
});

/** True when `redis-server` is installed. */
export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Resolves once `PING` on 127.0.0.1:`port` is answered with PONG, or false after `ms`. */
export async function redisAnswers(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const pong = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.setTimeout(1000);
      s.once('connect', () => s.write('PING\r\n'));
      s.once('data', (b) => (s.destroy(), resolve(b.toString().startsWith('+PONG'))));
      s.once('error', () => resolve(false));
      s.once('timeout', () => (s.destroy(), resolve(false)));
      s.connect(port, '127.0.0.1');
    });
    if (pong) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

export interface PrivateRedis {
  port: number;
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Kills the server (SIGKILL: an outage, not a shutdown) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty; resolves once it answers. */
  start(): Promise<void>;
}

/**
 * Starts `redis-server --port N --save '' --appendonly no` on a free port; resolves once it answers PING.
 * @example
 *   const redis = await startPrivateRedis();
 *   await redis.stop(); await redis.start(); // an outage and a restart on the same port
 */
export async function startPrivateRedis(startMs = 30_000): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    child = c;
    running.add(c);
    c.once('exit', () => running.delete(c));
    if (!(await redisAnswers(port, startMs))) throw new Error(`redis-server did not answer on port ${port} within ${startMs} ms`);
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}
