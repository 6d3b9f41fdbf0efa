/**
 * @module metrics/metrics-endpoint
 * `GET /metrics`: a registry's Prometheus text, for the addresses of an allow-list only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { compileCidrs, LOOPBACK_CIDRS } from '../gateway/cidr.js';

export const METRICS_PATH = '/metrics';

/** Default `--metrics-allow`: loopback only. */
export const DEFAULT_METRICS_ALLOW: readonly string[] = LOOPBACK_CIDRS;

/**
 * Whether `url` asks for the metrics: `/metrics`, with or without a query.
 */
export function isMetricsPath(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(METRICS_PATH) && (url.length === METRICS_PATH.length || url.charCodeAt(METRICS_PATH.length) === 0x3f);
}

/**
 * Compiles the allow-list (a bad CIDR throws here, at start-up) and returns what answers a
 * request for the metrics from `address`: 200 with the text, 403 problem for anyone else, 405 for
 * another method. Never cached: the figures are of this moment and this process.
 */
export function metricsResponder(registry: Registry, allow: readonly string[] | undefined): (address: string | undefined, req: IncomingMessage, res: ServerResponse) => void {
  const allowed = compileCidrs(allow ?? DEFAULT_METRICS_ALLOW);
  return (address, req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (!allowed(address)) {
      problem(res, 403, 'Forbidden', 'Metrics are readable from the --metrics-allow addresses only', 'ROA_ERR_METRICS_FORBIDDEN');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      problem(res, 405, 'Method Not Allowed', `${req.method} is not allowed on ${METRICS_PATH}`, 'ROA_ERR_METHOD_NOT_ALLOWED');
      return;
    }
    registry.metrics().then((text) => {
      res.statusCode = 200;
      res.setHeader('Content-Type', registry.contentType);
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(req.method === 'HEAD' ? undefined : text);
    }, (err: unknown) => {
      problem(res, 500, 'Internal Server Error', `metrics could not be collected: ${err instanceof Error ? err.message : String(err)}`, 'ROA_ERR_METRICS');
    });
  };
}

/** An RFC 9457 problem document, kept local: the standalone gateway has no app to render one. */
function problem(res: ServerResponse, status: number, title: string, detail: string, code: string): void {
  const body = JSON.stringify({ type: 'about:blank', title, status, detail, code });
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
