/**
 * @module test/helpers/roa-cli
 * Runs the built `roa` command (dist/cli.js) for CLI tests: to completion, or long-running until it
 * prints that it is ready.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(process.cwd(), 'dist', 'cli.js');

/** Runs `roa args` to completion (at most 20 s). */
export function roa(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 20_000 });
}

/**
 * Starts a long-running roa command and resolves once its output matches `ready`, with the match and
 * everything printed so far; rejects if it exits first or is not ready within `startMs`.
 */
export function roaRunning(args: string[], ready: RegExp, env: Record<string, string> = {}, startMs = 15_000): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`roa ${args.join(' ')} did not start: ${out}`)), startMs);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`roa exited with ${code}: ${out}`));
    });
  });
}

/** Stops a running roa with SIGTERM and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
