/**
 * @module test/gateway/gateway-extras
 * Accept normaliser and MemoryCacheStore units, ranges from a stored response, only-if-cached.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { acceptNormaliser } from '../../src/gateway/accept-normaliser.js';
import { ROA_MEDIA_TYPES } from '../../src/gateway/index.js';
import { negotiate } from '../../src/http/accepts.js';
import { send, startGateway, startOrigin } from './gateway-helpers.js';

describe('acceptNormaliser', () => {
  const n = acceptNormaliser(['application/xml', 'application/json', 'text/html']);
  it('picks by q-value, then specificity, then configured order (RFC 9110 §12.5.1)', () => {
    assert.equal(n('application/json'), 'application/json');
    assert.equal(n('application/xml;q=0.5, application/json'), 'application/json');
    assert.equal(n('*/*'), 'application/xml');
    assert.equal(n(undefined), 'application/xml');
    assert.equal(n('text/*'), 'text/html');
  });
  it('leaves an Accept it cannot satisfy untouched so the origin can answer 406', () => {
    assert.equal(n('image/png'), 'image/png');
  });
  it("chooses for roa's article service what the service itself would (ROA_MEDIA_TYPES, http/accepts)", () => {
    const roa = acceptNormaliser(ROA_MEDIA_TYPES);
    const cases: Array<[string, string]> = [
      ['application/json, text/plain, */*', 'application/json'],
      ['application/json, */*', 'application/json'],
      ['application/*, application/json', 'application/json'],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7', 'text/html'],
      ['text/html, */*;q=0.8', 'text/html'],
      ['text/html;q=0.5, application/json;q=0.4', 'text/html'],
      ['text/html', 'text/html'],
      ['text/*', 'text/html'],
      ['*/*', 'application/xml'],
      ['application/*', 'application/xml'],
      ['application/xml;q=0.9, text/html;q=0.8', 'application/xml'],
    ];
    for (const [accept, expected] of cases) {
      assert.equal(roa(accept), expected, accept);
      assert.equal(roa(accept), negotiate(accept, ROA_MEDIA_TYPES) ?? accept, `${accept}: as the service negotiates`);
    }
  });
});

describe('gateway ranges and only-if-cached', () => {
  it('serves a single byte range from a stored complete response (RFC 9110 §14.2)', async () => {
    const origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=60' });
      res.end('0123456789');
    });
    const gw = await startGateway(origin.url);
    try {
      await send(gw.base, '/r');
      const r = await send(gw.base, '/r', { headers: { Range: 'bytes=2-4' } });
      assert.equal(r.status, 206);
      assert.equal(r.body, '234');
      assert.equal(r.headers['content-range'], 'bytes 2-4/10');
      assert.equal(origin.seen.length, 1);
    } finally {
      await gw.close();
      await origin.close();
    }
  });

  it('answers 504 to only-if-cached when nothing is stored (RFC 9111 §5.2.1.7)', async () => {
    const origin = await startOrigin((_req, res) => res.end('x'));
    const gw = await startGateway(origin.url);
    try {
      const r = await send(gw.base, '/none', { headers: { 'Cache-Control': 'only-if-cached' } });
      assert.equal(r.status, 504);
      assert.equal(origin.seen.length, 0);
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});
