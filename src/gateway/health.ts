/**
 * @module gateway/health
 * The gateway's own `/healthz` and `/readyz`: answered here, never forwarded nor stored. Ready
 * means the upstream answers its `/readyz` below 500 within a second, so a non-roa origin that
 * answers at all (even 404) counts; the answer is reused for a second (operations/readiness).
 */
import { request } from 'node:http';
import { Readiness } from '../operations/readiness.js';

/** How long the upstream has to answer the gateway's readiness probe (ms). */
const UPSTREAM_PROBE_TIMEOUT_MS = 1000;

/**
 * Readiness of a gateway in front of `upstream` (an http: base URL).
 * @example
 *   const readiness = gatewayReadiness('http://127.0.0.1:3000');
 */
export function gatewayReadiness(upstream: string, localAddress?: string): Readiness {
  const base = new URL(upstream);
  const path = `${base.pathname.replace(/\/+$/, '')}/readyz`;
  return new Readiness({ upstream: () => probeUpstream(base, path, localAddress) }, { timeoutMs: UPSTREAM_PROBE_TIMEOUT_MS + 100 });
}

/** GET `path` on the origin on a connection of its own (not the pool a slow origin may have filled). */
function probeUpstream(base: URL, path: string, localAddress: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: base.hostname.replace(/^\[|\]$/g, ''),
      port: base.port === '' ? 80 : Number(base.port),
      path,
      method: 'GET',
      agent: false,
      timeout: UPSTREAM_PROBE_TIMEOUT_MS,
      headers: { connection: 'close' },
      ...(localAddress !== undefined ? { localAddress } : {}),
    });
    req.once('timeout', () => req.destroy(new Error(`upstream did not answer /readyz within ${UPSTREAM_PROBE_TIMEOUT_MS} ms`)));
    req.once('error', reject);
    req.once('response', (res) => {
      res.resume();
      if (res.statusCode !== undefined && res.statusCode < 500) resolve();
      else reject(new Error(`upstream /readyz answered ${res.statusCode}`));
    });
    req.end();
  });
}
