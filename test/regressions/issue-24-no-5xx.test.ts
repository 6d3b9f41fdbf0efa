/**
 * @module test/regressions/issue-24-no-5xx
 * Issue 24 §7: no request a client can make produces a 5xx, and error bodies in production carry no
 * internal text (stack frames, file paths, library error names, the upstream's address). A batch of
 * odd requests goes, as raw bytes, to the real service in production mode and to its embedded
 * gateway.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from '../helpers/node-test.js';
import { startGateway, rawExchange } from '../gateway/gateway-helpers.js';
import { startTestService, send, type TestService } from '../helpers/service.js';

/** Text that must never reach a client: how stack frames, paths and library errors look. */
const INTERNAL = [
  /\n\s+at [^\n]+:\d+:\d+/, /\bat (?:async )?[\w.<>]+ \(/, /\/work\//, /node_modules/, /\.[cm]?[jt]s:\d+/, /file:\/\//,
  /\b(?:TypeError|RangeError|ReferenceError|SyntaxError|SqliteError|URIError|AggregateError)\b/,
  /ECONNREFUSED|ECONNRESET|EADDR/, /Unexpected token|is not valid JSON|JSON\.parse|in JSON at position/,
  /Cannot read propert|undefined is not|is not a function|Maximum call stack/,
];

/** Text put into malformed bodies: a production error must not quote the client's body back. */
const MARKER = 'ZQXJ-body-excerpt';

interface OddRequest {
  name: string;
  /** Request line target. */
  target: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Raw bytes instead of a built request. */
  raw?: string;
  /** A closed connection without a response is an acceptable answer. */
  closeOk?: boolean;
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const XML_TYPE = 'application/xml';

function oddRequests(auth: string): OddRequest[] {
  const authed = (headers: Record<string, string> = {}) => ({ authorization: auth, ...headers });
  const deepJson = '['.repeat(200_000) + ']'.repeat(200_000);
  const deepXml = '<a>'.repeat(50_000) + '</a>'.repeat(50_000);
  const list: OddRequest[] = [
    // Paths.
    { name: 'truncated percent-encoding', target: '/article/%E0%A4%A' },
    { name: 'lone percent', target: '/articles/%' },
    { name: 'invalid UTF-8 escapes', target: '/articles/%FF%FE' },
    { name: 'NUL escape', target: '/article/%00' },
    { name: 'encoded slashes and dots', target: '/article/..%2f..%2fetc%2fpasswd' },
    { name: 'lone surrogate escape', target: '/articles/%ED%A0%80' },
    { name: 'huge id', target: '/article/99999999999999999999999999999999' },
    { name: 'negative id', target: '/article/-1' },
    { name: 'float id', target: '/article/1e309' },
    { name: 'absolute-form target', target: 'http://127.0.0.1/articles' },
    { name: 'asterisk-form target', target: '*', method: 'OPTIONS' },
    { name: 'long path', target: '/articles/' + 'a'.repeat(12_000) },
    // Query strings.
    { name: 'limit=abc', target: '/articles?limit=abc' },
    { name: 'limit=1e309', target: '/articles?limit=1e309' },
    { name: 'limit=-1', target: '/articles?limit=-1' },
    { name: 'limit=0', target: '/articles?limit=0' },
    { name: 'limit huge', target: '/articles?limit=99999999999999999999999' },
    { name: 'limit fraction', target: '/articles?limit=1.5' },
    { name: 'limit array', target: '/articles?limit[]=1&limit[x]=2' },
    { name: 'limit repeated', target: '/articles?limit=1&limit=2' },
    { name: 'limit bad escape', target: '/articles?limit=%' },
    { name: 'cursor garbage', target: '/articles?cursor=garbage' },
    { name: 'cursor bad escape', target: '/articles?cursor=%FF%E0' },
    { name: 'cursor base64 of junk', target: '/articles?cursor=' + Buffer.from('{"id":"x","at":[1,2]}').toString('base64url') },
    { name: 'cursor base64 of number', target: '/articles?cursor=' + Buffer.from('1e309').toString('base64url') },
    { name: 'cursor object', target: '/articles?cursor[a]=1' },
    { name: 'cursor huge', target: '/articles?cursor=' + 'A'.repeat(8000) },
    { name: 'query of escapes and brackets', target: '/articles?%=&&&=&a[b][c][d][e][f][g]=1&[]=&]=[' },
    { name: 'prototype keys in query', target: '/articles?__proto__[x]=1&constructor[prototype][y]=2' },
    { name: 'many parameters', target: '/articles?' + Array.from({ length: 1500 }, (_, i) => `p${i}=${i}`).join('&') },
    // Headers.
    { name: 'huge header', target: '/articles', headers: { 'x-big': 'a'.repeat(20_000) } },
    { name: 'huge Accept', target: '/articles', headers: { accept: 'text/html;q=0.1,'.repeat(900) + '*/*' } },
    { name: 'odd Accept', target: '/articles', headers: { accept: 'application;q=abc, */*;q=2, ;;' } },
    { name: 'odd Accept-Language/Encoding', target: '/articles', headers: { 'accept-language': ';;=', 'accept-encoding': 'gzip;q=x' } },
    { name: 'garbage If-None-Match', target: '/articles', headers: { 'if-none-match': '"' } },
    { name: 'garbage If-Modified-Since', target: '/articles', headers: { 'if-modified-since': '31 Feb 99999 99:99:99' } },
    { name: 'garbage Range', target: '/articles', headers: { range: 'bytes=9-1,x' } },
    { name: 'garbage Cache-Control', target: '/articles', headers: { 'cache-control': 'max-age=1e309, max-stale="', pragma: '"' } },
    { name: 'Basic not base64', target: '/articles', method: 'POST', headers: { authorization: 'Basic %%%%', 'content-type': JSON_TYPE }, body: '{}' },
    { name: 'Basic without colon', target: '/articles', method: 'POST', headers: { authorization: 'Basic ' + Buffer.from('nocolon').toString('base64'), 'content-type': JSON_TYPE }, body: '{}' },
    { name: 'Basic with invalid UTF-8', target: '/articles', method: 'POST', headers: { authorization: 'Basic ' + Buffer.from([0xff, 0x3a, 0xfe]).toString('base64'), 'content-type': JSON_TYPE }, body: '{}' },
    { name: 'empty Bearer', target: '/articles', method: 'POST', headers: { authorization: 'Bearer', 'content-type': JSON_TYPE }, body: '{}' },
    { name: 'garbage Bearer JWT', target: '/articles', method: 'POST', headers: { authorization: 'Bearer a.b.c', 'content-type': JSON_TYPE }, body: '{}' },
    { name: 'unknown scheme', target: '/articles', method: 'POST', headers: { authorization: 'Negotiate ' + 'x'.repeat(5000) } },
    { name: 'garbage hmac', target: '/articles', method: 'POST', headers: { authentication: 'hmac :::::', date: 'yesterday', 'content-type': JSON_TYPE }, body: '{}' },
    { name: 'hmac with bad Content-Digest', target: '/articles', method: 'POST', headers: { authentication: 'hmac a:b', 'content-digest': 'sha-256=:%%%:, (', 'content-type': JSON_TYPE }, body: '{}' },
    // Methods.
    { name: 'PATCH', target: '/articles/x', method: 'PATCH' },
    { name: 'TRACE', target: '/articles', method: 'TRACE' },
    { name: 'PROPFIND', target: '/articles', method: 'PROPFIND' },
    { name: 'M-SEARCH', target: '*', method: 'M-SEARCH' },
    { name: 'CONNECT', target: '127.0.0.1:1', method: 'CONNECT' },
    { name: 'unknown method', target: '/articles', method: 'BREW' },
    { name: 'lower-case method', target: '/articles', method: 'get' },
    { name: 'PURGE of a bad path', target: '/%E0%A4%A', method: 'PURGE' },
    { name: 'override to GET', target: '/articles', method: 'POST', headers: authed({ 'content-type': FORM }), body: '_method=GET' },
    { name: 'override header of junk', target: '/article/1', method: 'POST', headers: authed({ 'x-http-method-override': '\u0000,DELETE' }) },
    // Bodies.
    { name: 'truncated JSON', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: `{"title":"${MARKER}` },
    { name: 'JSON syntax error after text', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: `{"title":"${MARKER}" "x"}` },
    { name: 'JSON lone surrogate', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: '{"title":"\\ud800","price":{"amount":"1.00","currency":"eur"}}' },
    { name: 'JSON U+FFFF and C0', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE, accept: XML_TYPE }), body: '{"title":"\\uffff\\u0001","price":{"amount":"1.00","currency":"eur"}}' },
    { name: 'XML-preferring client, control bytes in the path', target: '/articles/%01%0B%EF%BF%BF', headers: { accept: 'application/problem+xml, application/xml' } },
    { name: 'XML syntax error after text', target: '/articles', method: 'POST', headers: authed({ 'content-type': XML_TYPE }), body: `<article><title>${MARKER}</title><` },
    { name: 'deep JSON', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: deepJson },
    { name: 'JSON of wrong shapes', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: '{"title":{"a":1},"price":[1e309]}' },
    { name: 'JSON price 1e309', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: '{"title":"t","price":{"amount":1e309,"currency":"eur"}}' },
    { name: 'JSON price of many digits', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: `{"title":"t","price":{"amount":"${'9'.repeat(5000)}.${'9'.repeat(5000)}","currency":"eur"}}` },
    { name: 'JSON proto keys', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: '{"__proto__":{"admin":true},"constructor":{"prototype":{}},"title":"t"}' },
    { name: 'JSON array at the top', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: '[1,2,3]' },
    { name: 'JSON invalid UTF-8', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE }), body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) },
    { name: 'JSON with odd charset', target: '/articles', method: 'POST', headers: authed({ 'content-type': 'application/json; charset=utf-7' }), body: '{}' },
    { name: 'truncated XML', target: '/articles', method: 'POST', headers: authed({ 'content-type': XML_TYPE }), body: '<article><title>' },
    { name: 'deep XML', target: '/articles', method: 'POST', headers: authed({ 'content-type': XML_TYPE }), body: deepXml },
    { name: 'XML with DOCTYPE entity', target: '/articles', method: 'POST', headers: authed({ 'content-type': XML_TYPE }), body: '<!DOCTYPE a [<!ENTITY x "xx">]><article><title>&x;</title></article>' },
    { name: 'XML prototype names', target: '/articles', method: 'POST', headers: authed({ 'content-type': XML_TYPE }), body: '<__proto__><constructor>1</constructor><title>t</title></__proto__>' },
    { name: 'form of junk', target: '/articles', method: 'POST', headers: authed({ 'content-type': FORM }), body: '%=%%&price[amount][x]=1&title[]=a&title[]=b' },
    { name: 'form with bad escapes in price', target: '/articles', method: 'POST', headers: authed({ 'content-type': FORM }), body: 'title=t&price[amount]=%FF&price[currency]=%E0' },
    { name: 'multipart', target: '/articles', method: 'POST', headers: authed({ 'content-type': 'multipart/form-data; boundary=x' }), body: '--x\r\n\r\n--x--' },
    { name: 'unknown Content-Type', target: '/articles', method: 'POST', headers: authed({ 'content-type': 'application/x-nope' }), body: 'x' },
    { name: 'malformed Content-Type', target: '/articles', method: 'POST', headers: authed({ 'content-type': ';;x=' }), body: 'x' },
    { name: 'PUT with If-Match garbage', target: '/articles/odd', method: 'PUT', headers: authed({ 'content-type': JSON_TYPE, 'if-match': '"a,b' }), body: '{"title":"t","price":{"amount":"1.00","currency":"eur"}}' },
    { name: 'PUT with invalid If-Unmodified-Since', target: '/articles/odd', method: 'PUT', headers: authed({ 'content-type': JSON_TYPE, 'if-unmodified-since': '1' }), body: '{"title":"t","price":{"amount":"1.00","currency":"eur"}}' },
    { name: 'PUT at a key of escapes', target: '/articles/%C3%28', method: 'PUT', headers: authed({ 'content-type': JSON_TYPE }), body: '{"title":"t","price":{"amount":"1.00","currency":"eur"}}' },
    { name: 'DELETE with a body', target: '/articles/none', method: 'DELETE', headers: authed({ 'content-type': JSON_TYPE }), body: '{}' },
    { name: 'Expect of junk', target: '/articles', method: 'POST', headers: authed({ 'content-type': JSON_TYPE, expect: 'nonsense' }), body: '{}' },
    // OAuth endpoints.
    { name: 'token of junk', target: '/oauth/token', method: 'POST', headers: { 'content-type': FORM }, body: 'grant_type=%%&client_id[]=x' },
    { name: 'token with JSON', target: '/oauth/token', method: 'POST', headers: { 'content-type': JSON_TYPE }, body: '{' },
    { name: 'token with bad client Basic', target: '/oauth/token', method: 'POST', headers: { 'content-type': FORM, authorization: 'Basic ' + Buffer.from('%E0:%ZZ').toString('base64') }, body: 'grant_type=client_credentials' },
    { name: 'introspect of junk', target: '/oauth/introspect', method: 'POST', headers: { 'content-type': FORM }, body: 'token=' + '%FF'.repeat(100) },
    { name: 'revoke of junk', target: '/oauth/revoke', method: 'POST', headers: { 'content-type': FORM }, body: 'token[]=1' },
    { name: 'metadata with junk query', target: '/.well-known/oauth-authorization-server?%', method: 'GET' },
    // Framing the parser refuses.
    { name: 'bad Content-Length', target: '', raw: 'POST /articles HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\nConnection: close\r\n\r\n' },
    { name: 'bad chunk size', target: '', raw: 'POST /articles HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n' },
    { name: 'NUL in header', target: '', raw: 'GET /articles HTTP/1.1\r\nHost: h\r\nX-A: a\u0000b\r\nConnection: close\r\n\r\n' },
    { name: 'HTTP/0.9-ish', target: '', raw: 'GET /articles\r\n\r\n' },
    { name: 'HTTP/2 preface', target: '', raw: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' },
    { name: 'HTTP/1.0 without Host', target: '', raw: 'GET /articles HTTP/1.0\r\n\r\n' },
    { name: 'many headers', target: '', raw: 'GET /articles HTTP/1.1\r\nHost: h\r\n' + Array.from({ length: 3000 }, (_, i) => `x-h${i}: ${i}\r\n`).join('') + 'Connection: close\r\n\r\n' },
  ];
  return list;
}

/**
 * The request's bytes: Connection: close, Host of the server, Content-Length for a body, and
 * X-Forwarded-Proto: https as a TLS terminator on this host would send (the service trusts loopback),
 * so production's TLS rule (issue 26) lets the credentials through to the code under test. The
 * gateway replaces the header with its own (http), so there credentialed requests get that rule's 403.
 */
function bytesOf(r: OddRequest, host: string): Buffer {
  if (r.raw !== undefined) return Buffer.from(r.raw, 'latin1');
  const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
  const lines = [`${r.method ?? 'GET'} ${r.target} HTTP/1.1`, `Host: ${host}`, 'Connection: close', 'X-Forwarded-Proto: https'];
  for (const [k, v] of Object.entries(r.headers ?? {})) lines.push(`${k}: ${v}`);
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
  return body === undefined ? head : Buffer.concat([head, body]);
}

function assertClean(where: string, r: OddRequest, status: number, text: string, also: RegExp[] = []): void {
  assert.ok(status > 0 || r.closeOk === true, `${where} ${r.name}: no response at all`);
  assert.ok(status < 500, `${where} ${r.name}: ${status}\n${text.slice(0, 600)}`);
  for (const pattern of [...INTERNAL, new RegExp(MARKER), ...also]) {
    assert.doesNotMatch(text, pattern, `${where} ${r.name}: the response shows internal text\n${text.slice(0, 600)}`);
  }
}

describe('odd requests in production (issue 24 §7)', () => {
  let svc: TestService;
  let auth: string;
  before(async () => {
    svc = await startTestService({ env: 'production', gatewayPort: 'ephemeral' });
    auth = await svc.addUser('fuzzy', 'admin');
    const seeded = await send(svc.base, 'PUT', '/articles/odd', {
      // As through a trusted TLS terminator: production refuses credentials over plain HTTP (issue 26).
      headers: { authorization: auth, 'content-type': JSON_TYPE, 'x-forwarded-proto': 'https' },
      body: '{"title":"Odd","price":{"amount":"1.00","currency":"eur"}}',
    });
    assert.equal(seeded.status, 201, seeded.text);
  });
  after(() => svc.close());

  for (const via of ['service', 'gateway'] as const) {
    it(`answers every one with a status below 500 and no internal text (${via})`, async () => {
      const base = new URL(via === 'service' ? svc.base : svc.gatewayBase!);
      const failures: string[] = [];
      for (const r of oddRequests(auth)) {
        const reply = await rawExchange({ host: base.hostname, port: Number(base.port) }, bytesOf(r, base.host), 60_000);
        try {
          assertClean(via, r, reply.status, reply.text);
        } catch (err) {
          failures.push((err as Error).message.split('\n').slice(0, 3).join(' | '));
        }
      }
      assert.deepEqual(failures, []);
    });
  }

  it('still serves after the batch', async () => {
    assert.equal((await send(svc.base, 'GET', '/articles/odd')).status, 200);
    assert.equal((await send(svc.gatewayBase!, 'GET', '/articles/odd')).status, 200);
  });
});

describe("the gateway's 502 (issue 24 §7)", () => {
  it('does not name the upstream address', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const gw = await startGateway(`http://127.0.0.1:${port}`);
    try {
      const reply = await rawExchange(gw.base, 'GET /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n', 60_000);
      assert.equal(reply.status, 502);
      const problem = JSON.parse(reply.body) as { detail: string };
      assert.equal(typeof problem.detail, 'string');
      assert.doesNotMatch(reply.text, new RegExp(`127\\.0\\.0\\.1|:${port}\\b|ECONNREFUSED|connect `));
    } finally {
      await gw.close();
    }
  });
});
