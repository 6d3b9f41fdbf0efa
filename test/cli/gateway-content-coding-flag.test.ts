/**
 * @module test/cli/gateway-content-coding-flag
 * `roa gateway --content-coding on|off` (GATEWAY_CONTENT_CODING): on (the default) asks the origin for
 * gzip whatever the client accepts, one stored copy for all; off passes the client's Accept-Encoding on.
 */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { roa, roaRunning, stop } from '../helpers/roa-cli.js';
import { send, startOrigin } from '../gateway/gateway-helpers.js';

const GATEWAY_READY = /roa gateway on http:\/\/127\.0\.0\.1:(\d+)/;

describe('roa gateway --content-coding', () => {
  it('asks the origin for gzip by default, and passes the client\'s Accept-Encoding on with off (flag or GATEWAY_CONTENT_CODING)', async () => {
    const seen: string[] = [];
    const origin = await startOrigin((req, res) => {
      seen.push(String(req.headers['accept-encoding']));
      res.writeHead(200, { 'Cache-Control': 'max-age=600', Vary: 'Accept-Encoding', 'Content-Type': 'text/plain' });
      res.end('plain');
    });
    try {
      for (const [args, env, expected] of [
        [[], {}, 'gzip'],
        [['--content-coding', 'off'], {}, 'br'],
        [[], { GATEWAY_CONTENT_CODING: 'off' }, 'br'],
      ] as const) {
        seen.length = 0;
        const gw = await roaRunning(['gateway', '--upstream', origin.url, '--port', '0', ...args], GATEWAY_READY, { ...env }, 60_000);
        try {
          const r = await send({ host: '127.0.0.1', port: Number(gw.match[1]) }, '/x', { headers: { 'Accept-Encoding': 'br' } });
          assert.equal(r.status, 200);
          assert.deepEqual(seen, [expected], `${args.join(' ')} ${JSON.stringify(env)}`);
        } finally {
          await stop(gw.child);
        }
      }
    } finally {
      await origin.close();
    }
  });

  it('refuses a value other than on or off with one line', () => {
    const r = roa(['gateway', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--content-coding', 'yes']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--content-coding must be on or off, got 'yes'/);
  });
});
