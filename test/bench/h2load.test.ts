/** @module test/bench/h2load — the harness reads h2load's summary like wrk's, and reports what TLS the runs negotiated. */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
// @ts-expect-error: a plain .mjs module of the bench harness, no types
import { parseH2load } from '../../bench/lib/h2load.mjs';
// @ts-expect-error: a plain .mjs module of the bench harness, no types
import { tlsLines } from '../../bench/lib/report.mjs';

/** h2load 1.52's output for `-D1 -c4 -m10 -t1` against an HTTPS server. */
const OUTPUT = `starting benchmark...
spawning thread #0: 4 total client(s). Timing-based test with 0s of warm-up time and 1s of main duration for measurements.
TLS Protocol: TLSv1.3
Cipher: TLS_AES_128_GCM_SHA256
Server Temp Key: X25519 253 bits
Application protocol: h2
Main benchmark duration is over for thread #0. Stopping all clients.

finished in 1.01s, 10540.00 req/s, 319.98KB/s
requests: 10540 total, 10580 started, 10540 done, 10530 succeeded, 10 failed, 3 errored, 2 timeout
status codes: 10560 2xx, 0 3xx, 6 4xx, 4 5xx
traffic: 319.98KB (327656) total, 20.82KB (21324) headers (space savings 95.31%), 20.64KB (21140) data
                     min         max         mean         sd        +/- sd
time for request:      919us     28.45ms      3.61ms      2.72ms    90.99%
time for connect:     2.53ms     46.24ms     27.63ms     18.79ms    75.00%
time to 1st byte:    23.46ms     50.85ms     38.43ms     12.05ms    50.00%
req/s           :    2607.95     2647.71     2633.09       17.33    75.00%
`;

describe('parseH2load', () => {
  it('reads rate, requests done, failures and the negotiated TLS', () => {
    const r = parseH2load(OUTPUT);
    assert.equal(r.rps, 10540);
    assert.equal(r.requests, 10540);
    assert.equal(r.durationMs, 1010);
    assert.equal(r.non2xx, 10);
    assert.equal(r.socketErrors, 5);
    assert.equal(r.latencyMs.mean, 3.61);
    assert.ok(Number.isNaN(r.latencyMs.p99));
    assert.deepEqual(r.tls, { protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256', alpn: 'h2' });
  });

  it('refuses output without a summary', () => {
    assert.throws(() => parseH2load('starting benchmark...\n'), /cannot parse h2load output/);
  });
});

describe('tlsLines', () => {
  it('sums each server’s counts over its runs and lists what h2load reported', () => {
    const tls = (server: Record<string, number>, client?: object) => ({ check: {}, server, ...(client ? { client } : {}) });
    const h2 = { protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256', alpn: 'h2' };
    const lines = tlsLines([
      { server: 'roa', tls: tls({ 'TLSv1.3 TLS_AES_128_GCM_SHA256 none': 101 }) },
      { server: 'roa', tls: tls({ 'TLSv1.3 TLS_AES_128_GCM_SHA256 h2': 33 }, h2) },
      { server: 'fastify', tls: tls({ 'TLSv1.3 TLS_AES_128_GCM_SHA256 none': 101 }) },
      { server: 'fastify', error: 'sanity check: status 500' },
    ]);
    assert.deepEqual(lines, [
      '- TLS, as each server counted its connections (sanity checks included): roa: TLSv1.3 TLS_AES_128_GCM_SHA256 ALPN none ×101, ' +
        'TLSv1.3 TLS_AES_128_GCM_SHA256 ALPN h2 ×33; fastify: TLSv1.3 TLS_AES_128_GCM_SHA256 ALPN none ×101',
      '- TLS, as h2load reported it: TLSv1.3 TLS_AES_128_GCM_SHA256 h2',
    ]);
    assert.deepEqual(tlsLines([{ server: 'roa', rps: 1 }]), []);
  });
});
