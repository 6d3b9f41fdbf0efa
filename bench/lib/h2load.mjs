/**
 * @module Drives h2load (nghttp2's HTTP/2 load client, Debian `nghttp2-client`) for one bounded window and
 * parses its summary into the shape runWrk gives, so HTTP/2 runs are measured and reported like wrk's.
 */
import { spawn } from 'node:child_process';
import { parseTime } from './wrk.mjs';

/** h2load processes still running, so an interrupted harness can stop them. */
const live = new Set();

/** SIGKILLs every h2load this process started that is still running. */
export function killH2load() {
  for (const child of live) child.kill('SIGKILL');
}

/**
 * Parses h2load's stdout. h2load reports no latency percentiles, only min/max/mean/sd per request:
 * p50/p99 are NaN (shown as a dash) and the mean is kept apart. Throws if the summary lines are missing.
 * @example parseH2load(out).rps // 95210.3
 */
export function parseH2load(text) {
  const finished = /^finished in (\S+), ([\d.]+) req\/s/m.exec(text);
  const req = /^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/m.exec(text);
  const codes = /^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/m.exec(text);
  if (!finished || !req || !codes) throw new Error(`cannot parse h2load output:\n${text}`);
  const mean = /^time for request:\s+\S+\s+\S+\s+(\S+)/m.exec(text);
  const field = (name) => new RegExp(`^${name}: (.+)$`, 'm').exec(text)?.[1].trim();
  return {
    requests: Number(req[3]),
    durationMs: parseTime(finished[1]),
    rps: Number(finished[2]),
    latencyMs: { p50: NaN, p99: NaN, mean: mean ? parseTime(mean[1]) : NaN },
    // As wrk counts them: responses neither 2xx nor 3xx; requests that got no response at all.
    non2xx: Number(codes[3]) + Number(codes[4]),
    socketErrors: Number(req[6]) + Number(req[7]),
    tls: { protocol: field('TLS Protocol'), cipher: field('Cipher'), alpn: field('Application protocol') },
  };
}

/**
 * Runs one h2load window against `url` (`-D duration`, `-c clients`, `-m streams` per client, `-t threads`)
 * and resolves with the parsed result. Bounded: SIGKILLed `duration + 15` s after start regardless.
 * @param {{ url: string, duration: number, clients: number, streams: number, threads: number, cpu?: string }} o
 */
export function runH2load(o) {
  const args = [`-D${o.duration}`, `-c${o.clients}`, `-m${o.streams}`, `-t${o.threads}`, o.url];
  const [cmd, argv] = o.cpu === undefined ? ['h2load', args] : ['taskset', ['-c', o.cpu, 'h2load', ...args]];
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
      if (code !== 0) return reject(new Error(`h2load exited ${code ?? signal}: ${err || out}`));
      try {
        resolve(parseH2load(out));
      } catch (e) {
        reject(e);
      }
    });
  });
}
