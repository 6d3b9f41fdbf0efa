/** @module Drives wrk: builds the Lua request script, runs one bounded load window, parses `--latency` output. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let scriptDir;

/** wrk processes still running, so an interrupted harness can stop them. */
const live = new Set();

/** SIGKILLs every wrk this process started that is still running. */
export function killWrk() {
  for (const child of live) child.kill('SIGKILL');
}

/** A Lua string literal; bytes outside printable ASCII become \ddd escapes (Lua strings are bytes). */
function luaString(s) {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += '\\' + b;
  }
  return out + '"';
}

/**
 * The harness's temp directory for wrk scripts (created on first use). On tmpfs where there is one: request
 * feeds run to tens of MB, and writing them back to disk during the next window showed up as iowait on the
 * server's CPU.
 */
export function scriptDirectory() {
  scriptDir ??= mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'roa-bench-'));
  return scriptDir;
}

/** Writes a wrk Lua script setting method, headers and body for `request`; returns its path. */
export function writeScript(request, suffix = '') {
  scriptDirectory();
  const lines = [`wrk.method = ${luaString(request.method ?? 'GET')}`];
  let body = request.body;
  if (body !== undefined && typeof body !== 'string') body = JSON.stringify(body);
  // wrk.format() adds Content-Length itself when wrk.body is set.
  if (body !== undefined) lines.push(`wrk.body = ${luaString(body)}`);
  for (const [k, v] of Object.entries(request.headers ?? {})) {
    lines.push(`wrk.headers[${luaString(k)}] = ${luaString(String(v))}`);
  }
  const file = path.join(scriptDir, `${request.name.replace(/[^\w.-]/g, '_')}${suffix ? `-${suffix}` : ''}.lua`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const UNITS_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "1.23ms" -> 1.23, in milliseconds; NaN if unparsable. */
export function parseTime(s) {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(s.trim());
  return m ? Number(m[1]) * UNITS_MS[m[2]] : NaN;
}

/** Parses wrk 4.x stdout (run with --latency). Throws if the summary lines are missing. */
export function parseWrk(text) {
  const latency = {};
  for (const m of text.matchAll(/^\s+(50|75|90|99)%\s+(\S+)\s*$/gm)) latency[`p${m[1]}`] = parseTime(m[2]);
  const req = /^\s*(\d+) requests in (\S+), (\S+) read/m.exec(text);
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(text);
  if (!req || !rps) throw new Error(`cannot parse wrk output:\n${text}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(text);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    requests: Number(req[1]),
    durationMs: parseTime(req[2]),
    rps: Number(rps[1]),
    latencyMs: latency,
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: sock ? sock.slice(1).reduce((a, n) => a + Number(n), 0) : 0,
  };
}

/**
 * Runs one wrk window against `url` and resolves with the parsed result.
 * Bounded: wrk stops itself after `duration` s; we SIGKILL it `duration + 15` s after start regardless.
 * @param {{ url: string, script: string, duration: number, connections: number, threads: number, cpu?: string }} o
 */
export function runWrk(o) {
  const args = [
    `-t${o.threads}`, `-c${o.connections}`, `-d${o.duration}s`,
    '--timeout', '2s', '--latency', '-s', o.script, o.url,
  ];
  const [cmd, argv] = o.cpu === undefined ? ['wrk', args] : ['taskset', ['-c', o.cpu, 'wrk', ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    child.on('exit', () => live.delete(child));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), (o.duration + 15) * 1000);
    child.on('error', (e) => {
      clearTimeout(killer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      if (code !== 0) return reject(new Error(`wrk exited ${code ?? signal}: ${err || out}`));
      try {
        resolve(parseWrk(out));
      } catch (e) {
        reject(e);
      }
    });
  });
}
