/** @module test/helpers/varnish — starts a real varnishd on loopback with the shipped VCL, for gateway tests. */
import { spawn, spawnSync, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The VCL shipped in deploy/varnish/. */
export const SHIPPED_VCL = fileURLToPath(new URL('../../deploy/varnish/roa.vcl', import.meta.url));

export interface RenderVclOptions {
  backendHost?: string;
  backendPort: number;
  /** Entries of `acl purgers`; default loopback (the shipped list). */
  purgers?: string[];
}

/**
 * Rewrites the two deployment-specific blocks of the shipped VCL: `.host`/`.port` inside
 * `backend default { ... }` and the body of `acl purgers { ... }`. Everything else is tested as shipped.
 */
export function renderVcl(source: string, opts: RenderVclOptions): string {
  const backend = /(backend\s+default\s*\{)([^}]*)(\})/;
  if (!backend.test(source)) throw new Error('renderVcl: no `backend default { ... }` block in the VCL');
  let out = source.replace(backend, (_m, open: string, body: string, close: string) => {
    const b = body
      .replace(/\.host\s*=\s*"[^"]*"\s*;/, `.host = "${opts.backendHost ?? '127.0.0.1'}";`)
      .replace(/\.port\s*=\s*"[^"]*"\s*;/, `.port = "${opts.backendPort}";`);
    return open + b + close;
  });
  if (opts.purgers) {
    const acl = /(acl\s+purgers\s*\{)([^}]*)(\})/;
    if (!acl.test(out)) throw new Error('renderVcl: no `acl purgers { ... }` block in the VCL');
    const entries = opts.purgers.map((a) => `\n    "${a}";`).join('');
    out = out.replace(acl, (_m, open: string, _body: string, close: string) => `${open}${entries}\n${close}`);
  }
  return out;
}

/**
 * A temp directory varnishd can read: started as root it drops to the `varnish` user (unix jail,
 * varnishd(1) "Jail") before reading -f, so mkdtemp's 0700 would hide the VCL from it.
 */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

let available: boolean | undefined;

/**
 * True when `varnishd` is installed and can compile a VCL importing vmod_xkey
 * (package varnish-modules). Synchronous, so a suite can decide at load time (skipReason, suiteNeeding); cached.
 */
export function varnishAvailable(): boolean {
  if (available !== undefined) return available;
  const dir = tempDir('roa-varnish-probe-');
  try {
    const vcl = join(dir, 'probe.vcl');
    writeFileSync(vcl, 'vcl 4.1;\nimport xkey;\nimport purge;\nbackend default none;\n', { mode: 0o644 });
    const r = spawnSync('varnishd', ['-C', '-n', join(dir, 'n'), '-f', vcl], { stdio: 'ignore', timeout: 30_000 });
    available = r.status === 0;
  } catch {
    available = false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return available;
}

/** Compiles a VCL file (`varnishd -C`); resolves with varnishd's error output, '' when it compiled. */
export function compileVcl(vclPath: string): Promise<string> {
  const dir = tempDir('roa-varnish-cc-');
  return new Promise((resolve) => {
    // -C prints the generated C on stderr too, so only a non-zero exit means an error.
    execFile('varnishd', ['-C', '-n', join(dir, 'n'), '-f', vclPath], { timeout: 60_000, maxBuffer: 64 << 20 }, (err, _out, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      resolve(err ? `${err.message}\n${stderr.slice(0, 4000)}` : '');
    });
  });
}

export interface StartVarnishOptions {
  /** Port of the origin on 127.0.0.1 (or backendHost). */
  backendPort: number;
  backendHost?: string;
  /** VCL template; default the shipped deploy/varnish/roa.vcl. */
  vclPath?: string;
  /** Replace the entries of `acl purgers` (e.g. to exclude 127.0.0.1 and test the 403). */
  purgers?: string[];
  /**
   * Also listen for a TLS terminator speaking PROXY v2 (hitch), as deploy/varnish/README.md runs it
   * (`-a 127.0.0.1:6086,PROXY`), on a second kernel-chosen port: `VarnishInstance.proxyPort`.
   */
  proxyListener?: boolean;
  /** Extra `-p name=value` runtime parameters (e.g. `feature: '+http2'`). */
  params?: Record<string, string | number>;
  /** Upper bound on waiting for varnishd to listen. Default 30000. */
  startTimeoutMs?: number;
}

export interface VarnishInstance {
  /** The port varnishd listens on, on 127.0.0.1. */
  port: number;
  /** `http://127.0.0.1:<port>`: what a client or `Purger` node list uses. */
  url: string;
  /** With `proxyListener`: the port of the PROXY listener on 127.0.0.1, where hitch connects. */
  proxyPort: number | undefined;
  /** The `-n` working directory (for varnishlog/varnishstat -n while debugging). */
  workdir: string;
  /**
   * Runs a varnishadm command (words split on spaces, e.g. `ban req.url ~ .`) on this instance's
   * CLI, which listens on `-T 127.0.0.1:0` and is found through `-n`; resolves with its output.
   */
  admin(command: string): Promise<string>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  // Last resort when a test forgot stop() or failed before it: no varnishd outlives the run.
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `varnishd -F` on 127.0.0.1 with a port chosen by the kernel, the VCL rendered for the
 * given backend, `-s malloc,32m`, and a fresh `-n` directory; resolves once it listens.
 *
 * @example
 * const cache = await startVarnish({ backendPort: service.port });
 * const res = await fetch(`${cache.url}/article/7`);
 * await cache.stop();
 */
export async function startVarnish(opts: StartVarnishOptions): Promise<VarnishInstance> {
  const root = tempDir('roa-varnish-');
  const workdir = join(root, 'n');
  const vcl = join(root, 'roa.vcl');
  writeFileSync(vcl, renderVcl(readFileSync(opts.vclPath ?? SHIPPED_VCL, 'utf8'), opts), { mode: 0o644 });

  const params: Record<string, string | number> = {
    // Small for tests: one thread pool, few threads, a small shared-memory log.
    thread_pools: 1,
    thread_pool_min: 10,
    thread_pool_max: 100,
    vsl_space: '4M',
    // Slow CI machines can take a while to compile and load the VCL.
    cli_timeout: 60,
    ...opts.params,
  };
  const args = ['-F', '-n', workdir, '-a', '127.0.0.1:0', '-T', '127.0.0.1:0', '-f', vcl, '-s', 'malloc,32m'];
  if (opts.proxyListener) args.push('-a', 'proxy=127.0.0.1:0,PROXY');
  for (const [k, v] of Object.entries(params)) args.push('-p', `${k}=${v}`);

  const child = spawn('varnishd', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const collect = (b: Buffer) => {
    if (output.length < 20_000) output += b.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let exited: number | string | null | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = code ?? signal;
      running.delete(child);
      resolve();
    });
    child.once('error', (err) => {
      exited = err.message;
      running.delete(child);
      resolve();
    });
  });

  const stop = async (): Promise<void> => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(killer);
    }
    rmSync(root, { recursive: true, force: true });
  };

  const admin = (command: string): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile('varnishadm', ['-n', workdir, '-t', '5', ...command.split(' ')], { timeout: 10_000 }, (err, out, stderr) => {
        if (err) reject(new Error(`varnishadm ${command}: ${err.message} ${stderr}${out}`));
        else resolve(out);
      });
    });

  try {
    const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
    let port = 0;
    let proxyPort: number | undefined;
    while (port === 0) {
      if (exited !== undefined) throw new Error(`varnishd exited (${exited}) before listening:\n${output}`);
      if (Date.now() > deadline) throw new Error(`varnishd did not start listening in time:\n${output}`);
      try {
        // "a0 127.0.0.1 41327" (and "proxy 127.0.0.1 40095"): the addresses each -a :0 was bound to.
        const listen = await admin('debug.listen_address');
        const m = /^a0\s+127\.0\.0\.1\s+(\d+)/m.exec(listen);
        const p = /^proxy\s+127\.0\.0\.1\s+(\d+)/m.exec(listen);
        const status = await admin('status');
        if (m && (p || !opts.proxyListener) && /running/.test(status)) {
          port = Number(m[1]);
          proxyPort = p ? Number(p[1]) : undefined;
        } else await sleep(100);
      } catch {
        await sleep(100);
      }
    }
    return { port, url: `http://127.0.0.1:${port}`, proxyPort, workdir, admin, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
