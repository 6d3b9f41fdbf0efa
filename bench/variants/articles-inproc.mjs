#!/usr/bin/env node
/**
 * @module In-process A/B of builds on GET /article/1 (the articles scenario's request, X-Forwarded-Proto:
 * https): each build's startService on its own seeded SQLite store, 50 fake sockets handed to its node:http
 * server with pipelined requests, builds alternated in short rounds in ONE process; CPU per request from
 * process.cpuUsage. No kernel, no wrk: steadier than run.mjs on a machine other loads share, but it leaves
 * out the socket and syscall cost both builds pay. The build loaded second has measured ~3-5% cheaper
 * (an A/A of one build): run both orders and take the geometric mean of the two ratios.
 *   node bench/variants/articles-inproc.mjs ROUNDS PER_ROUND NAME=DIST_DIR NAME=DIST_DIR ...
 *   PROF=out.json …   also writes a CPU profile with each round's window (build, start, end).
 */
import { Duplex } from 'node:stream';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SERVER_KEY, openSeededStore } from '../lib/fixture.mjs';
process.env.NODE_ENV = 'production';
const [roundsS, perS, ...specs] = process.argv.slice(2);
const rounds = +roundsS, per = +perS;
if (!(rounds > 0 && per > 0 && specs.length > 0)) {
  console.error('usage: node bench/variants/articles-inproc.mjs ROUNDS PER_ROUND NAME=DIST_DIR ...');
  process.exit(2);
}
const REQ = Buffer.from('GET /article/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\n\r\n');
class Sock extends Duplex {
  constructor(b) { super({ decodeStrings: false }); this.b = b; this.remoteAddress = '127.0.0.1'; this.remotePort = 50000; this.remoteFamily = 'IPv4'; }
  _read() {}
  see(c) { const s = typeof c === 'string' ? c : c.toString('latin1', 0, 12); if (s.startsWith('HTTP/1.1 ')) { if (!s.startsWith('HTTP/1.1 200')) throw new Error(s); this.b.onResponse(this); } }
  _write(c, _e, cb) { this.see(c); cb(); }
  _writev(cs, cb) { this.see(cs[0].chunk); cb(); }
  setTimeout() { return this; } setNoDelay() { return this; } setKeepAlive() { return this; }
}
const builds = [];
for (const spec of specs) {
  const [name, dist] = spec.split('=');
  const { startService } = await import(pathToFileURL(path.resolve(dist, 'service.js')).href);
  const seeded = await openSeededStore();
  const service = await startService({ store: seeded.store, port: 0, host: '127.0.0.1', gatewayPort: 0, logLevel: 'silent', serverKey: SERVER_KEY });
  const b = { name, us: [], onResponse: () => {} };
  b.socks = Array.from({ length: 50 }, () => { const s = new Sock(b); service.server.emit('connection', s); return s; });
  builds.push(b);
}
function run(b, n) {
  return new Promise((resolve) => {
    let sent = 0, done = 0;
    b.onResponse = (s) => { done++; if (sent < n) { sent++; setImmediate(() => s.push(REQ)); } if (done === n) resolve(); };
    for (const s of b.socks) if (sent < n) { sent++; s.push(REQ); }
  });
}
for (const b of builds) await run(b, per * 3);
let session; const windows = [];
if (process.env.PROF) {
  const { Session } = await import('node:inspector/promises');
  session = new Session(); session.connect();
  await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 }); await session.post('Profiler.start');
}
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [...builds].reverse() : builds;
  for (const b of order) {
    const c0 = process.cpuUsage();
    const t0 = Number(process.hrtime.bigint() / 1000n);
    await run(b, per);
    windows.push({ name: b.name, t0, t1: Number(process.hrtime.bigint() / 1000n) });
    const c = process.cpuUsage(c0);
    b.us.push((c.user + c.system) / per);
  }
}
if (session) {
  const { profile } = await session.post('Profiler.stop');
  (await import('node:fs')).writeFileSync(process.env.PROF, JSON.stringify({ profile, windows, per }));
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))];
for (const b of builds) {
  const ratios = b.us.map((u, i) => u / builds[0].us[i]);
  console.log(`${b.name.padEnd(16)} median ${med(b.us).toFixed(2)} µs/req  min ${Math.min(...b.us).toFixed(2)}  /${builds[0].name}: paired median ${med(ratios).toFixed(3)} (IQR ${q(ratios, 0.25).toFixed(3)}–${q(ratios, 0.75).toFixed(3)})`);
}
process.exit(0);
