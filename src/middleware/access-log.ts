/**
 * @module middleware/access-log
 * One structured log line per request (pino): method, path, status, duration, request id, and for a
 * 5xx the error's code and reason. The query string and headers are left out, so credentials
 * (tokens, signatures, passwords) never reach the log. The same 'finish' listener feeds the
 * request metrics, so a request pays for one listener, one clock read at each end and one id.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { isMetricsPath } from '../metrics/metrics-endpoint.js';
import { probeKind, type ProbeKind } from '../operations/health.js';
import { routeLabelOf } from '../metrics/route-label.js';
import { OTHER_ROUTE, UNMATCHED_ROUTE, type ServiceMetrics } from '../metrics/service-metrics.js';
import { assignRequestId } from './request-id.js';

const FAILURE = Symbol('roa.failure');

/** Why a request failed with a 5xx, for its access log line: a stable code and a reason without credentials. */
export interface Failure {
  code: string;
  reason: string;
}

type Tracked = Response & { [FAILURE]?: Failure };

/** Records why `res` is failing (called where the 5xx is produced); its access log line carries it. */
export function noteFailure(res: Response, failure: Failure): void {
  (res as Tracked)[FAILURE] = failure;
}

export interface AccessLogOptions {
  /** Request count and duration by route pattern, method and status (metrics/service-metrics). */
  metrics?: ServiceMetrics;
  /**
   * Answers `GET /metrics` before anything is logged or counted (metrics/metrics-endpoint), judged
   * by `req.ip`; here rather than in a layer of its own, which every request would pass through.
   */
  answerMetrics?: (address: string | undefined, req: Request, res: Response) => void;
  /**
   * Answers `/healthz` and `/readyz` (operations/health) before anything is logged or counted:
   * probes stay out of the access log, and every other request pays one character test for them
   * here rather than a layer of their own.
   */
  answerProbe?: (kind: ProbeKind, req: Request, res: Response) => void;
}

/**
 * Answers the probes and the metrics when asked (`answerProbe`, `answerMetrics`); gives every other
 * request its id (`req.id`, `X-Request-Id`: middleware/request-id), then once its
 * response has finished logs it at `info` (nothing when the level is above) and counts it in
 * `metrics`.
 * @example
 *   app.use(accessLog(pino(), { metrics: new ServiceMetrics() }));
 */
export function accessLog(logger: Logger, opts: AccessLogOptions = {}) {
  const metrics = opts.metrics;
  // One listener for every request: the response is `this`, its request `this.req`.
  function finished(this: Response): void {
    const req = this.req;
    const ms = performance.now() - req.receivedAt;
    const status = this.statusCode;
    const method = req.originalMethod ?? req.method ?? 'GET';
    metrics?.observeRequest(routeLabelOf(req) ?? (status === 404 ? UNMATCHED_ROUTE : OTHER_ROUTE), method, status, ms / 1000);
    if (!logger.isLevelEnabled('info')) return;
    const url = req.originalUrl || req.url || '/';
    const q = url.indexOf('?');
    const failure = status >= 500 ? (this as Tracked)[FAILURE] : undefined;
    logger.info({
      method,
      path: q === -1 ? url : url.slice(0, q),
      status,
      ms,
      reqId: req.id,
      ...(failure !== undefined ? { code: failure.code, reason: failure.reason } : {}),
    }, 'request');
  }
  const answerMetrics = opts.answerMetrics;
  const answerProbe = opts.answerProbe;
  return (req: Request, res: Response, next: NextFunction): void => {
    const url = req.url;
    if (answerProbe !== undefined) {
      const kind = probeKind(url);
      if (kind !== undefined) {
        answerProbe(kind, req, res);
        return;
      }
    }
    if (answerMetrics !== undefined && isMetricsPath(url)) {
      answerMetrics(req.ip, req, res);
      return;
    }
    assignRequestId(req, res);
    req.receivedAt = performance.now();
    // 'on', not 'once': a response finishes once, and once() would wrap the listener per request.
    res.on('finish', finished);
    next();
  };
}
