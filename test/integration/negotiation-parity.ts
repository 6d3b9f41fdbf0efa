/**
 * @module test/integration/negotiation-parity
 * What a cache in front of the article service must not change: the representation each client's
 * Accept gets. Shared by the embedded-gateway and the Varnish sequences.
 */
import assert from 'node:assert/strict';
import { send, type SimpleResponse } from '../helpers/service.js';

/** Accept values clients send (axios, browsers, hand-written), some of which caches once answered differently. */
export const CLIENT_ACCEPTS = [
  'application/json, text/plain, */*',
  'application/json, */*',
  'application/*, application/json',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'text/html, */*;q=0.8',
  'text/html;q=0.5, application/json;q=0.4',
  'text/html',
];

/**
 * Asks the service at `serviceBase` and then, twice (a miss, then a hit), `throughCache` for `path`
 * with each of CLIENT_ACCEPTS; the status and media type must be the service's own.
 */
export async function assertNegotiatesLikeService(
  serviceBase: string, path: string, throughCache: (path: string, headers: Record<string, string>) => Promise<SimpleResponse>,
): Promise<void> {
  for (const accept of CLIENT_ACCEPTS) {
    const direct = await send(serviceBase, 'GET', path, { headers: { accept } });
    for (let i = 0; i < 2; i++) {
      const cached = await throughCache(path, { accept });
      assert.equal(cached.status, direct.status, accept);
      assert.equal(cached.headers['content-type'], direct.headers['content-type'], accept);
    }
  }
}
