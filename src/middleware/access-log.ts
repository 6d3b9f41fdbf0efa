/**
 * @module middleware/access-log
 * One structured log line per request (pino): method, path, status, duration. The query string
 * and headers are left out, so credentials (tokens, signatures, passwords) never reach the log.
 */
import type { Logger } from 'pino';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

/**
 * Logs each request at `info` on a pino logger once its response has finished; nothing when the
 * logger's level is above `info`.
 * @example
 *   app.use(accessLog(pino()));
 */
export function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!logger.isLevelEnabled('info')) {
      next();
      return;
    }
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const url = req.originalUrl || req.url || '/';
      const q = url.indexOf('?');
      logger.info({
        method: req.originalMethod ?? req.method,
        path: q === -1 ? url : url.slice(0, q),
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - start) / 1e6,
      }, 'request');
    });
    next();
  };
}
