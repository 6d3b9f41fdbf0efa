/** @module Turns recorded runs into markdown: per-endpoint medians, subject/peer ratios, raw runs; edits RESULTS.md sections. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fmt, median, medianInterval, ratio, spread, times } from './stats.mjs';

/** Below this share of one core during the window the server was waiting on the client or starved: flag it. */
export const SATURATED_PCT = 90;

/** Median figures per (request, server), in scenario order. */
export function summarize(meta, runs) {
  const out = [];
  for (const request of meta.requests) {
    for (const server of meta.servers) {
      const rs = runs.filter((r) => r.request === request && r.server === server && !r.discarded);
      const ok = rs.filter((r) => !r.error);
      out.push({
        request,
        server,
        runs: ok.length,
        errors: rs.filter((r) => r.error).map((r) => r.error),
        rps: median(ok.map((r) => r.rps)),
        rpsSpread: spread(ok.map((r) => r.rps)),
        p99: median(ok.map((r) => r.p99Ms)),
        meanMs: median(ok.map((r) => r.meanMs)),
        usPerReq: median(ok.map((r) => r.cpuUsPerReq)),
        usSpread: spread(ok.map((r) => r.cpuUsPerReq)),
        cpuPct: median(ok.map((r) => r.cpuPct)),
        otherPct: median(ok.map((r) => r.otherPct)),
        iowaitPct: median(ok.map((r) => r.iowaitPct)),
        unsaturated: ok.filter((r) => r.cpuPct < SATURATED_PCT).length,
        outsideUsPerReq: median(ok.map((r) => r.outsideUsPerReq)),
        outsideName: ok.find((r) => r.outsideName)?.outsideName,
        non2xx: ok.reduce((a, r) => a + r.non2xx, 0),
        socketErrors: ok.reduce((a, r) => a + r.socketErrors, 0),
      });
    }
  }
  return out;
}

/** The most telling line of an error (a thrown Error's message rather than the stack or a wrapper). */
export function errorLine(error) {
  const lines = error.split('\n').map((l) => l.trim()).filter(Boolean);
  const hit = lines.find((l) => /^\w*Error\b[^(]*:/.test(l)) ?? lines.find((l) => /Cannot find/.test(l)) ?? lines[0] ?? '';
  return hit.replace(/\|/g, '\\|').slice(0, 100);
}

function notes(s) {
  const n = [];
  // CPU 0 neither busy with the server nor with others: the server waited on the client (wrk starved on its CPU).
  if (s.unsaturated) {
    const why = s.iowaitPct >= 3 ? ` (CPU 0 ${fmt(s.iowaitPct)}% in iowait: disk-bound)` : s.otherPct < 10 ? ' (CPU 0 idle: client-bound)' : '';
    n.push(`${s.unsaturated}/${s.runs} not saturated${why}`);
  }
  if (Number.isFinite(s.outsideUsPerReq)) n.push(`+${fmt(s.outsideUsPerReq, 1)} µs/req in ${s.outsideName ?? 'shared processes'} (not in CPU µs/req)`);
  if (Number.isFinite(s.meanMs)) n.push(`mean latency ${fmt(s.meanMs, 2)} ms (h2load gives no percentiles)`);
  if (s.non2xx) n.push(`${s.non2xx} non-2xx`);
  if (s.socketErrors) n.push(`${s.socketErrors} socket errors`);
  if (Number.isFinite(s.rpsSpread) && s.rpsSpread > 0.1) n.push(`req/s spread ${(s.rpsSpread * 100).toFixed(0)}%`);
  if (s.errors.length) n.push(`failed: ${errorLine(s.errors[0])}`);
  return n.join('; ');
}

/** Markdown report for one scenario run (or a merge of several). */
export function renderScenario(meta, runs) {
  const summary = summarize(meta, runs);
  const L = [];
  L.push(`## Scenario \`${meta.scenario}\``, '');
  L.push(meta.description, '');
  L.push('```sh', meta.command, '```', '');
  L.push(
    `- When: ${meta.started} (${meta.git}); ${meta.rounds} interleaved rounds × ${meta.duration} s ` +
      `after ${meta.warmup} s warm-up, wrk -t${meta.threads} -c${meta.connections}` +
      (meta.h2load ? ` (h2 requests: h2load ${meta.h2load.version} -t${meta.threads} -c${meta.h2load.clients} -m${meta.h2load.streams})` : '') +
      '; ' +
      `a fresh server per run; not-saturated runs retried ${meta.retry ?? 0}×` +
      (meta.bracket ? `; every run of another server between two runs of \`${meta.bracket}\` (--bracket)` : ''),
    `- Pinning: ${meta.pinned ? `server on CPU ${meta.serverCpu}, wrk on CPU ${meta.wrkCpu}` : 'none'}`,
    `- Machine: ${meta.machine.cpu}, ${meta.machine.kernel}, node ${meta.machine.node}, ${meta.wrk}`,
    `- Load average (1/5/15 min): ${meta.loadBefore} before, ${meta.loadAfter ?? '?'} after`,
    ...tlsLines(runs),
    '',
  );
  L.push(
    'Medians over rounds. *CPU µs/req* = server utime+stime during the window ÷ requests (the steadiest figure on a',
    `shared machine). *server CPU* = share of one core; under ${SATURATED_PCT}% the run is flagged not saturated.`,
    '*other CPU0* = time CPU 0 spent on anything but the server (noise from other processes, softirqs).',
    '',
  );
  for (const request of meta.requests) {
    const def = meta.requestDefs?.[request];
    const over = def?.protocol === 'h2' ? ' over HTTP/2 (h2load)' : def?.protocol === 'https' ? ' over HTTPS (HTTP/1.1, wrk)' : '';
    L.push(`### ${request}${def ? ` — \`${def.method} ${def.path}\`${over}` : ''}`, '');
    L.push('| server | req/s | p99 ms | CPU µs/req | server CPU | other CPU0 | runs | notes |');
    L.push('|---|---:|---:|---:|---:|---:|---:|---|');
    for (const s of summary.filter((x) => x.request === request)) {
      L.push(
        `| ${s.server} | ${fmt(s.rps)} | ${fmt(s.p99, 2)} | ${fmt(s.usPerReq, 1)} | ${fmt(s.cpuPct)}% | ` +
          `${fmt(s.otherPct)}% | ${s.runs} | ${notes(s)} |`,
      );
    }
    L.push('');
  }
  if (meta.baseline && meta.servers.includes(meta.baseline)) L.push(...relativeTable(meta, summary, runs));
  // With a baseline the relative table says it all; subject/peer ratios would only repeat it inverted.
  if (meta.baseline) return L.join('\n');
  if (!meta.servers.includes(meta.subject)) {
    L.push(`No ratios: the subject \`${meta.subject}\` was not in this run.`, '');
    return L.join('\n');
  }
  const others = meta.servers.filter((s) => s !== meta.subject);
  const peers = [...(meta.peers ?? []).filter((p) => others.includes(p)), ...others.filter((p) => !meta.peers?.includes(p))];
  L.push(`### Ratios: ${meta.subject} vs peers`, '');
  L.push(
    `req/s ratio > 1: ${meta.subject} serves more; CPU/req ratio < 1: ${meta.subject} spends less CPU per request.`,
    `*paired*: the median over rounds of each round's own req/s ratio (a slow minute cancels out of its round), with its 95% interval in brackets (distribution-free, from six rounds on).`,
    '',
  );
  L.push(
    `| endpoint | ${peers.map((p) => `req/s ${meta.subject}/${p}`).join(' | ')} | ` +
      `${peers.map((p) => `CPU/req ${meta.subject}/${p}`).join(' | ')} |`,
  );
  L.push(`|---|${peers.map(() => '---:').join('|')}|${peers.map(() => '---:').join('|')}|`);
  for (const request of meta.requests) {
    const get = (server) => summary.find((x) => x.request === request && x.server === server);
    const subj = get(meta.subject);
    L.push(
      `| ${request} | ${peers.map((p) => `${ratio(subj.rps, get(p).rps)} (paired ${pairedRatio(runs, request, meta.subject, p, meta.bracket)})`).join(' | ')} | ` +
        `${peers.map((p) => ratio(subj.usPerReq, get(p).usPerReq)).join(' | ')} |`,
    );
  }
  L.push('');
  return L.join('\n');
}

/**
 * What TLS the runs negotiated: per server, its own count of connections by version, cipher and ALPN
 * (sanity checks and load clients alike), and what h2load reported. Empty for plain-HTTP runs.
 */
export function tlsLines(runs) {
  const measured = runs.filter((r) => r.tls && !r.error);
  if (!measured.length) return [];
  const perServer = new Map();
  for (const r of measured) {
    const counts = perServer.get(r.server) ?? {};
    for (const [k, n] of Object.entries(r.tls.server ?? {})) counts[k] = (counts[k] ?? 0) + n;
    perServer.set(r.server, counts);
  }
  const each = [...perServer].map(([server, counts]) => {
    const seen = Object.entries(counts).map(([k, n]) => `${k.replace(/ (\S+)$/, ' ALPN $1')} ×${n}`);
    return `${server}: ${seen.length ? seen.join(', ') : 'not reported'}`;
  });
  const clients = [...new Set(measured.filter((r) => r.tls.client).map((r) => Object.values(r.tls.client).join(' ')))];
  return [
    `- TLS, as each server counted its connections (sanity checks included): ${each.join('; ')}`,
    ...(clients.length ? [`- TLS, as h2load reported it: ${clients.join('; ')}`] : []),
  ];
}

/**
 * Each server relative to the scenario's `baseline` server (e.g. auth modes vs anonymous): req/s ratio
 * (< 1: slower than the baseline) and CPU/req ratio (> 1: costs more per request).
 */
function relativeTable(meta, summary, runs) {
  const b = meta.baseline;
  const L = [`### Relative to \`${b}\``, ''];
  L.push(
    `req/s ÷ ${b}: < 1 serves fewer; CPU/req ÷ ${b}: > 1 spends more CPU per request. *paired*: the median over`,
    `rounds of each round's own req/s ratio, so a slow minute on the shared machine cancels out of its round; in`,
    `brackets its 95% interval (distribution-free, from six rounds on): a target is met only if the interval clears it.`,
    ...(meta.bracket === b ? [`Bracketed run: each run is paired instead with the mean of the two \`${b}\` runs just before and after it.`] : []),
    '',
  );
  L.push(`| endpoint | server | req/s | CPU µs/req | req/s ÷ ${b} | req/s ÷ ${b}, paired | CPU/req ÷ ${b} | notes |`);
  L.push('|---|---|---:|---:|---:|---:|---:|---|');
  for (const request of meta.requests) {
    const base = summary.find((x) => x.request === request && x.server === b);
    for (const s of summary.filter((x) => x.request === request)) {
      L.push(
        `| ${request} | ${s.server} | ${fmt(s.rps)} | ${fmt(s.usPerReq, 1)} | ${ratio(s.rps, base.rps)} | ` +
          `${pairedRatio(runs, request, s.server, b, meta.bracket)} | ${ratio(s.usPerReq, base.usPerReq)} | ${notes(s)} |`,
      );
    }
  }
  L.push('');
  return L;
}

/**
 * Median over rounds of server a's req/s ÷ server b's in the same round (rounds where both ran), with
 * its 95% interval (medianInterval) when there are rounds enough: `0.78× [0.71–0.84]`.
 * `bracket`: the server that ran before and after every other one (run.mjs --bracket). When it is a or b,
 * each run of the other server is paired with the mean of the bracket's runs just before and just after
 * it, seconds apart instead of a round apart: a drift of the machine's speed mostly cancels out.
 */
export function pairedRatio(runs, request, a, b, bracket) {
  const ratios = bracket !== undefined && a !== b && (a === bracket || b === bracket) ? bracketedRatios(runs, request, a, b, bracket) : roundRatios(runs, request, a, b);
  const [low, high] = medianInterval(ratios);
  return times(median(ratios)) + (Number.isFinite(low) && a !== b ? ` [${low.toFixed(2)}–${high.toFixed(2)}]` : '');
}

const usable = (r) => !r.discarded && !r.error;

function roundRatios(runs, request, a, b) {
  const pick = (server, round) => runs.find((r) => r.request === request && r.server === server && r.round === round && usable(r));
  const ratios = [];
  for (const round of new Set(runs.map((r) => r.round))) {
    const [x, y] = [pick(a, round), pick(b, round)];
    if (x && y && y.rps > 0) ratios.push(x.rps / y.rps);
  }
  return ratios;
}

/** One ratio per run of the non-bracket server, against the mean req/s of the bracket's neighbouring runs. */
function bracketedRatios(runs, request, a, b, bracket) {
  const other = a === bracket ? b : a;
  const ordered = runs.filter((r) => r.request === request && usable(r) && Number.isFinite(r.seq)).sort((x, y) => x.seq - y.seq);
  const ratios = [];
  ordered.forEach((run, i) => {
    if (run.server !== other) return;
    const before = ordered.slice(0, i).findLast((r) => r.server === bracket);
    const after = ordered.slice(i + 1).find((r) => r.server === bracket);
    const around = [before, after].filter(Boolean);
    if (!around.length) return;
    const base = around.reduce((n, r) => n + r.rps, 0) / around.length;
    if (base > 0 && run.rps > 0) ratios.push(a === bracket ? base / run.rps : run.rps / base);
  });
  return ratios;
}

/** Every run, for latest.md only (RESULTS.md keeps the medians). */
export function renderRuns(runs) {
  const L = ['<details><summary>All runs</summary>', ''];
  L.push('| endpoint | round | server | req/s | p99 ms | CPU µs/req | server CPU | other CPU0 | requests | error |');
  L.push('|---|---:|---|---:|---:|---:|---:|---:|---:|---|');
  for (const r of runs) {
    L.push(
      `| ${r.request} | ${r.round} | ${r.server} | ${fmt(r.rps)} | ${fmt(r.p99Ms, 2)} | ${fmt(r.cpuUsPerReq, 1)} | ` +
        `${fmt(r.cpuPct)}% | ${fmt(r.otherPct)}% | ${r.requests ?? '—'} | ${r.discarded ? 'discarded: not saturated' : errorLine(r.error ?? '')} |`,
    );
  }
  L.push('', '</details>', '');
  return L.join('\n');
}

/**
 * Replaces the block between `<!-- bench:KEY:begin -->` and `<!-- bench:KEY:end -->` in `file`,
 * or appends it when the markers are absent.
 */
export function writeSection(file, key, markdown) {
  const begin = `<!-- bench:${key}:begin -->`;
  const end = `<!-- bench:${key}:end -->`;
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  const next = i !== -1 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
