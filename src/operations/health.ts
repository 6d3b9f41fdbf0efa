/**
 * @module operations/health
 * `GET /healthz` (the process answers) and `GET /readyz` (its dependencies answer, and it is not
 * shutting down), for the service and the gateway alike: no authentication, never stored by a
 * cache (`Cache-Control: no-store`, RFC 9111 §5.2.2.5), small JSON bodies. They are answered before
 * anything is logged, authenticated or parsed: on the service in the access log's layer
 * (middleware/access-log's `answerProbe`), on the gateway first thing in its handler (gateway/proxy).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readiness } from './readiness.js';

export type ProbeKind = 'healthz' | 'readyz';

/** The probe `url` (a request target, query allowed) names, or undefined; cheap enough for every request. */
export function probeKind(url: string | undefined): ProbeKind | undefined {
  if (url === undefined) return undefined;
  // One character rules out nearly every request before any string is compared.
  const c = url.charCodeAt(1);
  if (c === 104 /* h */ && url.startsWith('/healthz') && endsPath(url, 8)) return 'healthz';
  if (c === 114 /* r */ && url.startsWith('/readyz') && endsPath(url, 7)) return 'readyz';
  return undefined;
}

/** The path ends at `at`: the end of the target, or its query. */
function endsPath(url: string, at: number): boolean {
  return url.length === at || url.charCodeAt(at) === 63 /* ? */;
}

export interface ProbeOptions {
  /** Production: the readiness body names the failed checks but not why they failed. */
  production?: boolean;
}

/**
 * Answers a probe request: GET and HEAD; any other method gets 405 with `Allow` (RFC 9110 §15.5.6).
 * @example
 *   const kind = probeKind(req.url);
 *   if (kind !== undefined) return answerProbe(kind, req, res, readiness);
 */
export function answerProbe(kind: ProbeKind, req: IncomingMessage, res: ServerResponse, readiness: Readiness, opts: ProbeOptions = {}): void {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') {
    send(req, res, 405, { type: 'about:blank', title: 'Method Not Allowed', status: 405, detail: `/${kind} answers GET and HEAD` }, 'application/problem+json', { Allow: 'GET, HEAD' });
    return;
  }
  if (kind === 'healthz') {
    send(req, res, 200, { status: 'ok' });
    return;
  }
  readiness.check().then((r) => {
    if (r.ready) send(req, res, 200, { status: 'ok' });
    else if (r.shuttingDown) send(req, res, 503, { status: 'shutting-down' });
    else send(req, res, 503, { status: 'unavailable', checks: opts.production === true ? withoutReasons(r.checks) : r.checks });
  }, () => send(req, res, 503, { status: 'unavailable' }));
}

/** Production bodies say which check failed, not the message (it may name hosts or paths). */
function withoutReasons(checks: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, outcome] of Object.entries(checks)) out[name] = outcome === 'ok' ? 'ok' : 'failed';
  return out;
}

function send(req: IncomingMessage, res: ServerResponse, status: number, body: object, type = 'application/json', extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...extra, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(text)), 'Cache-Control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}
