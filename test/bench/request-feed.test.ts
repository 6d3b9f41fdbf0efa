/**
 * @module test/bench/request-feed
 * The benchmark's request feed keeps only what differs between requests; the shared start and end are
 * stored once in the Lua script and joined back per request. Every request must come back byte for byte.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
// @ts-expect-error: a plain .mjs module of the bench, without types
import { rawRequest, writeRequestFeed } from '../../bench/lib/request-feed.mjs';

/** What the Lua script would send: prefix .. middle .. suffix for each NUL-terminated middle of the feed. */
function replay(scriptPath: string): string[] {
  const lua = readFileSync(scriptPath, 'utf8');
  const literal = (name: string) => JSON.parse(new RegExp(`^local ${name} = (.*)$`, 'm').exec(lua)![1]!) as string;
  const middles = readFileSync(literal('feed'), 'utf8').split('\0');
  assert.equal(middles.pop(), '', 'every middle ends with a NUL');
  return middles.map((m) => literal('prefix') + m + literal('suffix'));
}

describe('bench request feed', () => {
  it('stores the shared start and end once and rebuilds every request exactly', () => {
    const requests = Array.from({ length: 50 }, (_, i) =>
      rawRequest('GET', '/article/1', 8080, { Authentication: `hmac u:nonce-${'x'.repeat(i % 7)}${i}:digest${i}==`, Date: 'Sun, 22 Nov 2026 12:00:00 GMT' }),
    );
    const script = writeRequestFeed('test-feed', requests.length, (i: number) => requests[i]!);
    assert.deepEqual(replay(script), requests);
    const lua = readFileSync(script, 'utf8');
    assert.match(lua, /^local prefix = "GET \/article\/1 HTTP\/1\.1\\r\\nHost: 127\.0\.0\.1:8080\\r\\nAuthentication: hmac u:nonce-/m);
    assert.match(lua, /^local suffix = ".*GMT\\r\\n\\r\\n"$/m);
  });

  it('keeps the prefix and suffix from overlapping when requests differ only in length', () => {
    const requests = ['GET /aa HTTP/1.1\r\n\r\n', 'GET /a HTTP/1.1\r\n\r\n', 'GET /aaa HTTP/1.1\r\n\r\n'];
    assert.deepEqual(replay(writeRequestFeed('test-overlap', 3, (i: number) => requests[i]!)), requests);
  });

  it('refuses a request holding the NUL separator', () => {
    assert.throws(() => writeRequestFeed('test-nul', 1, () => 'GET /\0 HTTP/1.1\r\n\r\n'), /NUL/);
  });
});
