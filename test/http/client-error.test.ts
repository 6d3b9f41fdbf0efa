/** @module test/http/client-error — requests node's parser refuses still get a problem+json answer. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { raw, serve, type Served } from '../middleware/harness.js';

/** Status line, headers and parsed body of a raw HTTP/1.1 answer. */
function parse(text: string): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  const end = text.indexOf('\r\n\r\n');
  assert.ok(end > 0, `no complete answer in ${JSON.stringify(text)}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(text.slice(end + 4)) };
}

const CASES: Array<[name: string, request: string, status: number, type: string]> = [
  ['a header section over 16 KiB', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'header-too-large'],
  ['a raw UTF-8 byte in the target', 'GET /articles?q=\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed-request'],
  ['a control byte in a field value', 'GET / HTTP/1.1\r\nHost: x\r\nAuthentication: hmac a\x7fb\r\n\r\n', 400, 'malformed-request'],
  ['a lower-case method', 'get / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed-request'],
];

function refusals(port: () => number): void {
  for (const [name, request, status, type] of CASES) {
    it(`answers ${name} with ${status} problem+json and closes`, async () => {
      const answer = parse(await raw(port(), [request]));
      assert.equal(answer.status, status);
      assert.equal(answer.headers['content-type'], 'application/problem+json');
      assert.equal(answer.headers.connection, 'close');
      assert.equal(answer.body.status, status);
      assert.equal(answer.body.type, `https://roa.dev/problems/${type}`);
      assert.equal(typeof answer.body.detail, 'string');
    });
  }
}

describe('requests the HTTP parser refuses', () => {
  let app: Served;
  let gateway: Gateway;
  let gatewayPort = 0;
  before(async () => {
    app = await serve((a) => a.get('/', (_req, res) => res.send('ok')));
    gateway = createGateway({ upstream: app.base });
    gatewayPort = (await gateway.listen(0, '127.0.0.1')).port;
  });
  after(async () => {
    await gateway.close();
    await app.close();
  });

  describe('an app server', () => refusals(() => app.port));
  describe('the caching gateway', () => refusals(() => gatewayPort));

  it('leaves the body out of the answer to a HEAD request', async () => {
    const text = await raw(app.port, ['HEAD /articles?q=\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n']);
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.match(text, /Content-Type: application\/problem\+json/);
    assert.ok(text.endsWith('\r\n\r\n'), JSON.stringify(text));
  });

  it('still answers a good request on a new connection afterwards', async () => {
    const text = await raw(app.port, ['GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    assert.match(text, /^HTTP\/1\.1 200 /);
  });
});
