/** @module Starts one peer server (optionally pinned with taskset), waits for `listening <port>`, stops it. */
import { spawn } from 'node:child_process';

const START_TIMEOUT_MS = 15_000;

/** Servers still running, so an interrupted harness can stop them. */
const live = new Set();

/** SIGKILLs every server this process started and has not stopped yet. */
export function killServers() {
  for (const child of live) child.kill('SIGKILL');
}
const STOP_GRACE_MS = 2_000;

/**
 * Spawns `server.cmd server.args` with PORT=0 and resolves once it prints `listening <port>`.
 * Rejects (with the tail of stderr) if it exits first or takes longer than 15 s.
 * taskset execs the command, so the child's pid is the server's own pid.
 * @param {{ name: string, cmd: string, args?: string[], env?: object, cwd?: string }} server
 * @param {{ cpu?: string }} [opts]
 */
export function startServer(server, opts = {}) {
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes to node servers only: NODE_OPTIONS
  // would reach the harness too, and node refuses --cpu-prof there.
  const nodeArgs = server.cmd === process.execPath && process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(/\s+/) : [];
  const args = [...nodeArgs, ...(server.args ?? [])];
  const [cmd, argv] = opts.cpu === undefined ? [server.cmd, args] : ['taskset', ['-c', opts.cpu, server.cmd, ...args]];
  const child = spawn(cmd, argv, {
    cwd: server.cwd,
    env: { ...process.env, NODE_ENV: 'production', ...server.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.on('exit', () => live.delete(child));
  let stderr = '';
  let stdout = '';
  // Keep draining both pipes for the server's whole life so it never blocks on a full pipe.
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));

  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));

  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${server.name}: no "listening <port>" within ${START_TIMEOUT_MS} ms\n${stderr}`));
    }, START_TIMEOUT_MS);
    child.stdout.on('data', (d) => {
      stdout = (stdout + d).slice(-4000);
      const m = /listening (\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${server.name}: exited (${code}) before listening\n${stderr.trim()}`));
    });
  });

  async function stop() {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(t);
  }

  return ready.then(
    (port) => ({ pid: child.pid, port, stop, stderr: () => stderr }),
    async (e) => {
      await stop();
      throw e;
    },
  );
}
