/** @module CPU accounting from /proc: per-process ticks and per-CPU busy ticks (Linux only). */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';

let clkTck;

/** Clock ticks per second (`getconf CLK_TCK`, almost always 100). */
export function clockTicks() {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/**
 * utime + stime of a process (all its threads), in clock ticks.
 * Fields 14 and 15 of /proc/<pid>/stat (proc(5)); comm may contain spaces, so split after the last ')'.
 */
export function processTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);
}

/**
 * utime + stime of a process and all its descendants (e.g. varnishd's manager and cache worker started by a
 * server script), in clock ticks. Walks /proc once; a descendant that exits mid-window loses its ticks.
 */
export function treeTicks(pid) {
  const parent = new Map();
  const own = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(name), Number(rest[1]));
    own.set(Number(name), Number(rest[11]) + Number(rest[12]));
  }
  const isUnder = (p) => {
    for (let q = p, hops = 0; q > 1 && hops < 64; q = parent.get(q) ?? 0, hops++) if (q === pid) return true;
    return false;
  };
  let sum = 0;
  for (const [p, t] of own) if (isUnder(p)) sum += t;
  return sum;
}

/** Pids of running processes whose command name (`/proc/<pid>/comm`) is `name`, e.g. a shared redis-server. */
export function pidsNamed(name) {
  const out = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() === name) out.push(Number(p));
    } catch {
      // exited
    }
  }
  return out;
}

/** Busy, iowait and total ticks of one CPU from /proc/stat (busy = total - idle - iowait). */
export function cpuTicks(cpu) {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${cpu} `));
  if (!line) return { busy: 0, total: 0 };
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], iowait: f[4], total };
}

/** Whether a pid is still alive (for sanity checks). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One-line machine description for reports. */
export function machine() {
  const cpus = os.cpus();
  const model = cpus[0]?.model?.trim() ?? 'unknown CPU';
  return {
    cpu: `${model} × ${cpus.length}`,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    load: os.loadavg().map((l) => l.toFixed(2)).join(' '),
  };
}
