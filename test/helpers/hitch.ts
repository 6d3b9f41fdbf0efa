/** @module test/helpers/hitch — starts a real hitch (TLS terminator) on loopback with the shipped deploy/hitch/hitch.conf, in front of varnishd's PROXY listener. */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
// hitch cannot listen on port 0 and report it: it gets a port the kernel had free a moment ago.
import { freePort } from './ports.js';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The hitch configuration shipped in deploy/hitch/. */
export const SHIPPED_HITCH_CONF = fileURLToPath(new URL('../../deploy/hitch/hitch.conf', import.meta.url));

let available: boolean | undefined;

/** True when the `hitch` binary runs (Debian package `hitch`). Synchronous for skipReason; cached. */
export function hitchAvailable(): boolean {
  if (available !== undefined) return available;
  try {
    available = spawnSync('hitch', ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  } catch {
    available = false;
  }
  return available;
}

export interface RenderHitchOptions {
  frontendPort: number;
  backendPort: number;
  pemFile: string;
  /** The user workers run as; absent drops the `user`/`group` lines (hitch not started as root). */
  user?: string;
}

/**
 * Rewrites the deployment-specific settings of the shipped hitch.conf for a loopback test: the
 * frontend, the backend port, the pem-file, one worker, and the user. TLS versions, ciphers,
 * ALPN and PROXY v2 are tested as shipped.
 */
export function renderHitchConf(source: string, opts: RenderHitchOptions): string {
  const set = (text: string, key: string, value: string | undefined): string => {
    const line = new RegExp(`^${key}\\s*=.*$`, 'm');
    if (!line.test(text)) throw new Error(`renderHitchConf: no \`${key} = …\` line in hitch.conf`);
    return text.replace(line, value === undefined ? '' : `${key} = ${value}`);
  };
  let out = set(source, 'frontend', `"[127.0.0.1]:${opts.frontendPort}"`);
  out = set(out, 'backend', `"[127.0.0.1]:${opts.backendPort}"`);
  out = set(out, 'pem-file', `"${opts.pemFile}"`);
  out = set(out, 'workers', '1');
  out = set(out, 'user', opts.user === undefined ? undefined : `"${opts.user}"`);
  out = set(out, 'group', undefined);
  return out;
}

/**
 * The user hitch's workers run as: it refuses root, so under root the package's `_hitch`, else
 * `nobody`; as anyone else, that user (no switch).
 */
function workerUser(): string | undefined {
  if (userInfo().uid !== 0) return undefined;
  return spawnSync('id', ['_hitch'], { stdio: 'ignore' }).status === 0 ? '_hitch' : 'nobody';
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(1000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.connect(port, '127.0.0.1');
  });
}

export interface StartHitchOptions {
  /** The PROXY v2 listener to hand connections to, on 127.0.0.1 (varnishd's `-a …,PROXY`). */
  backendPort: number;
  /** Certificate (chain) and its key, PEM; hitch reads them as one file, so they are concatenated. */
  cert: Buffer;
  key: Buffer;
  /** Upper bound on waiting for hitch to listen. Default 30000. */
  startTimeoutMs?: number;
}

export interface HitchInstance {
  /** The TLS port on 127.0.0.1. */
  port: number;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts hitch in the foreground with the shipped configuration rendered for loopback ports;
 * resolves once it accepts connections. A port taken between choosing and binding is retried.
 * @example
 *   const tls = await startHitch({ backendPort: cache.proxyPort!, cert: certs.cert, key: certs.key });
 *   await fetch(`https://localhost:${tls.port}/`, …)   // verified against the test CA
 *   await tls.stop();
 */
export async function startHitch(opts: StartHitchOptions): Promise<HitchInstance> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(opts, await freePort());
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startOnce(opts: StartHitchOptions, port: number): Promise<HitchInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'roa-hitch-'));
  chmodSync(dir, 0o700);
  const pemFile = join(dir, 'roa.pem');
  writeFileSync(pemFile, Buffer.concat([opts.cert, Buffer.from('\n'), opts.key]), { mode: 0o600 });
  const conf = join(dir, 'hitch.conf');
  writeFileSync(conf, renderHitchConf(readFileSync(SHIPPED_HITCH_CONF, 'utf8'), { frontendPort: port, backendPort: opts.backendPort, pemFile, user: workerUser() }));

  const child = spawn('hitch', [`--config=${conf}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const collect = (b: Buffer) => {
    if (output.length < 20_000) output += b.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let exited: number | string | null | undefined;
  const exit = new Promise<void>((resolve) => {
    const done = (why: number | string | null) => {
      exited = why;
      running.delete(child);
      resolve();
    };
    child.once('exit', (code, signal) => done(code ?? signal));
    child.once('error', (err) => done(err.message));
  });

  const stop = async (): Promise<void> => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
    for (;;) {
      if (exited !== undefined) throw new Error(`hitch exited (${exited}) before listening:\n${output}`);
      if (Date.now() > deadline) throw new Error(`hitch did not start listening in time:\n${output}`);
      // The port was free before hitch started, so whatever accepts on it now is hitch.
      if ((await accepts(port)) && exited === undefined) return { port, stop };
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
}
