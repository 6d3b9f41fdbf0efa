/**
 * @module test/regressions/issue-24-parsers
 * Issue 24 item 6: the hand-written header and body parsers replaced by the libraries Express uses
 * (content-type, type-is, negotiator, vary, encodeurl, secure-json-parse, structured-headers,
 * net.BlockList) and by one strict HTTP-date module and one entity-tag list parser.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createApp } from '../../src/app.js';
import { json } from '../../src/middleware/json.js';
import type { NextFunction, Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { negotiate } from '../../src/http/accepts.js';
import { parseContentType } from '../../src/http/content-type.js';
import { parseHttpDate, parseImfFixdate } from '../../src/http/http-date.js';
import { parseEtagList, weakMatch } from '../../src/http/etag-list.js';
import { parseJson } from '../../src/http/json-parse.js';
import { acceptNormaliser } from '../../src/gateway/accept-normaliser.js';
import { parseSfDictionary } from '../../src/gateway/structured-field.js';
import { compileCidrs, LOOPBACK_CIDRS } from '../../src/gateway/cidr.js';
import { evaluatePreconditions } from '../../src/resources/conditional.js';
import { parseContentDigest } from '../../src/auth/content-digest-check.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { HttpError } from '../../src/errors/http-error.js';
import { request, withServer, type SimpleResponse } from '../helpers/server.js';
import { send, startTestService, type TestService } from '../helpers/service.js';
import { send as gatewaySend, startGateway, startOrigin } from '../gateway/gateway-helpers.js';

/** A JSON echo app (json() then req.body back), errors as {status, code, detail}. */
async function postJson(body: string, contentType: string, env = 'test'): Promise<SimpleResponse> {
  const app = createApp({ env });
  app.post('/', json(), (req: Request, res: Response) => res.json({ body: req.body as unknown }));
  app.use((err: HttpError, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ status: err.status, code: err.code, detail: err.message });
  });
  return withServer(app, (base) => request(base, 'POST', '/', { headers: { 'content-type': contentType }, body }));
}

describe('issue 24: Content-Type through content-type and type-is', () => {
  it('keeps a ";" inside a quoted parameter in that parameter', () => {
    const parsed = parseContentType('application/json; profile="x;charset=latin1"');
    assert.equal(parsed?.type, 'application/json');
    assert.equal(parsed?.parameters.profile, 'x;charset=latin1');
    assert.equal(parsed?.parameters.charset, undefined);
  });

  it('refuses malformed values', () => {
    for (const bad of ['application/json; charset', ';;x', 'application/json;;x', 'application/json; charset=', 'application', 'application/json, text/html', 'a b/c']) {
      assert.equal(parseContentType(bad), undefined, bad);
    }
    // RFC 9110 §5.6.6 allows empty parameters (`;` with nothing after it).
    assert.equal(parseContentType('application/json;')?.type, 'application/json');
    assert.equal(parseContentType('Application/JSON ; Charset="UTF-8"')?.parameters.charset, 'UTF-8');
  });

  it('json() reads a body whose quoted parameter holds ";charset=latin1"', async () => {
    const res = await postJson('{"a":1}', 'application/json; profile="x;charset=latin1"');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(JSON.parse(res.text), { body: { a: 1 } });
  });

  it('json() answers 400 to a malformed Content-Type and 415 to another charset', async () => {
    for (const bad of ['application/json; charset', 'application/json;;x', 'application/json; charset=']) {
      const res = await postJson('{"a":1}', bad);
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assert.equal(JSON.parse(res.text).code, 'ROA_ERR_MALFORMED_CONTENT_TYPE', bad);
    }
    assert.equal((await postJson('{"a":1}', 'application/json; charset=latin1')).status, 415);
    for (const ok of ['application/json; charset=UTF8', 'application/json; charset="utf-8"', 'application/json;']) {
      assert.equal((await postJson('{"a":1}', ok)).status, 200, ok);
    }
  });

  it('req.is() follows type-is', async () => {
    const app = createApp({ env: 'test' });
    app.post('/', (req: Request, res: Response) => res.json({ json: req.is('json'), suffix: req.is('+json'), any: req.is('application/*'), bad: req.is('text/*') }));
    const res = await withServer(app, (base) => request(base, 'POST', '/', { headers: { 'content-type': 'application/merge-patch+json; charset=utf-8' }, body: '{}' }));
    // type-is returns the request's own type for a wildcard or suffix pattern, as Express's req.is does.
    assert.deepEqual(JSON.parse(res.text), { json: false, suffix: 'application/merge-patch+json', any: 'application/merge-patch+json', bad: false });
  });
});

describe('issue 24: Accept through negotiator', () => {
  const HTML = 'text/html';
  const JSON_TYPE = 'application/json';

  it('does not split a quoted parameter at its comma', () => {
    // One range, image/png with a parameter: nothing offered fits (the old split found text/html).
    assert.equal(negotiate('image/png;a="x, text/html, y"', [JSON_TYPE, HTML]), undefined);
  });

  it('reads `Accept: application` as no valid range at all, as negotiator does (406)', () => {
    assert.equal(negotiate('application', [HTML, JSON_TYPE]), undefined);
  });

  it('still lets charset=utf-8 in a range match what roa sends (its text types carry it)', () => {
    assert.equal(negotiate('application/json; charset=utf-8', [HTML, JSON_TYPE]), JSON_TYPE);
    assert.equal(negotiate('application/json; charset=latin1', [HTML, JSON_TYPE]), undefined);
  });

  it('the gateway normaliser leaves such values to the origin, which answers 406', () => {
    const normalise = acceptNormaliser([JSON_TYPE, HTML]);
    assert.equal(normalise('application'), 'application');
    assert.equal(normalise('image/png;a="x, text/html, y"'), 'image/png;a="x, text/html, y"');
    assert.equal(normalise('text/html;q=0.5, application/json;q=0.4'), HTML);
  });
});

describe('issue 24: res.vary through vary, res.location through encodeurl', () => {
  async function answer(fn: (res: Response) => void): Promise<SimpleResponse> {
    const app = createApp({ env: 'test' });
    app.get('/', (_req: Request, res: Response) => {
      fn(res);
      res.end();
    });
    return withServer(app, (base) => request(base, 'GET', '/'));
  }

  it('adds each field once, whatever the case and however they were listed', async () => {
    const res = await answer((r) => r.vary('Accept').vary('Origin, accept').vary('origin'));
    assert.equal(res.headers.vary, 'Accept, Origin');
  });

  it('keeps Vary: * as it is', async () => {
    const res = await answer((r) => r.vary('*').vary('Accept'));
    assert.equal(res.headers.vary, '*');
  });

  it('encodes a lone surrogate in Location instead of throwing', async () => {
    const res = await answer((r) => r.location('/a/\uD800?q=100%25&x=ü'));
    assert.equal(res.status, 200);
    assert.equal(res.headers.location, '/a/%EF%BF%BD?q=100%25&x=%C3%BC');
  });
});

describe('issue 24: JSON prototype-poisoning guard through secure-json-parse', () => {
  it('keeps keys named prototype and constructor that reach no prototype', () => {
    assert.deepEqual(parseJson('{"a":{"prototype":1,"constructor":2},"constructor":{"name":"x"}}'), {
      a: { prototype: 1, constructor: 2 },
      constructor: { name: 'x' },
    });
  });

  it('refuses __proto__ and constructor.prototype with 400, at any depth', () => {
    for (const text of ['{"__proto__":{"x":1}}', '{"a":[{"__pro\\u0074o__":1}]}', '{"a":{"constructor":{"prototype":{"x":1}}}}']) {
      assert.throws(() => parseJson(text), (e: HttpError) => e.status === 400 && e.code === 'ROA_ERR_MALFORMED_JSON', text);
    }
  });

  it('json() keeps prototype/constructor keys and refuses __proto__', async () => {
    const kept = await postJson('{"prototype":1,"constructor":{"a":2}}', 'application/json');
    assert.deepEqual(JSON.parse(kept.text), { body: { prototype: 1, constructor: { a: 2 } } });
    const refused = await postJson('{"__proto__":{"admin":true}}', 'application/json');
    assert.equal(refused.status, 400);
  });

  it('quotes none of the client body in the error, in production', async () => {
    const secret = 'hunter2-very-secret';
    const res = await postJson(`{"password":"${secret}",}`, 'application/json', 'production');
    assert.equal(res.status, 400);
    assert.doesNotMatch(res.text, /hunter2/);
  });
});

describe('issue 24: structured fields through structured-headers', () => {
  it('CDN-Cache-Control: the last duplicate key wins', () => {
    assert.equal(parseSfDictionary('max-age=60, max-age=5')?.get('max-age'), '5');
  });

  it('CDN-Cache-Control: inner lists, dates and display strings are valid members', () => {
    for (const v of ['a=(1 2), max-age=3', 'b=%"f%c3%bc", max-age=3', 'max-age=3, d=@1659578233', 'a;p="x,y", max-age=3']) {
      assert.equal(parseSfDictionary(v)?.get('max-age'), '3', v);
    }
    for (const v of ['max-age=60, &&&', 'max-age="60"', 'max-age=-1', 'max-age=1.5', 'Max-Age=1']) assert.equal(parseSfDictionary(v), undefined, v);
  });

  const digest = createHash('sha-256').update('body').digest('base64');

  it('Content-Digest: a quoted comma in a parameter, and an inner list for another algorithm', () => {
    assert.deepEqual(parseContentDigest(`sha-256=:${digest}:;note="a,b"`).map((d) => d.value.toString('base64')), [digest]);
    assert.equal(parseContentDigest(`unixsum=(1 2), sha-256=:${digest}:`).length, 1);
  });

  it('Content-Digest: the last duplicate key wins', () => {
    const parsed = parseContentDigest(`sha-256=:AAAA:, sha-256=:${digest}:`);
    assert.deepEqual(parsed.map((d) => d.value.toString('base64')), [digest]);
  });

  it('Content-Digest: a member named like an Object.prototype property is an unknown algorithm, not a 500', () => {
    assert.throws(() => parseContentDigest('constructor=:AAAA:, tostring=:AAAA:'), (e: HttpError) => e.status === 400 && e.code === 'ROA_ERR_UNSUPPORTED_CONTENT_DIGEST');
  });

  it('Content-Digest: a supported algorithm with another type of value is malformed (400)', () => {
    assert.throws(() => parseContentDigest('sha-256="abc"'), (e: HttpError) => e.status === 400 && e.code === 'ROA_ERR_MALFORMED_CONTENT_DIGEST');
  });
});

describe('issue 24: PURGE allow-list through net.BlockList', () => {
  it('matches IPv4-mapped IPv6 in hex form against IPv4 ranges', () => {
    assert.equal(compileCidrs(LOOPBACK_CIDRS)('::ffff:7f00:1'), true);
    assert.equal(compileCidrs(LOOPBACK_CIDRS)('::ffff:a00:1'), false);
  });

  it('matches IPv4 addresses against an IPv4-mapped IPv6 range', () => {
    const allowed = compileCidrs(['::ffff:0:0/96']);
    assert.equal(allowed('127.0.0.1'), true);
    assert.equal(allowed('::ffff:10.0.0.1'), true);
    assert.equal(allowed('::1'), false);
  });
});

describe('issue 24: strict HTTP-dates (RFC 9110 §5.6.7)', () => {
  const now = Date.UTC(2025, 0, 1);

  it('refuses dates that do not exist and weekdays that do not fit', () => {
    for (const bad of ['Sat, 31 Feb 2024 00:00:00 GMT', 'Mon, 31 Apr 2024 00:00:00 GMT', 'Fri, 29 Feb 2023 00:00:00 GMT', 'Mon, 06 Nov 1994 08:49:37 GMT', 'Sun Feb 31 00:00:00 2024', '1', '3000']) {
      assert.equal(parseHttpDate(bad, now), undefined, bad);
    }
    assert.equal(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT', now), Date.UTC(2024, 1, 29));
    assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994', now), 784111777000);
  });

  it('reads a two-digit rfc850 year relative to an injected clock', () => {
    assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', now), 784111777000);
    assert.equal(parseHttpDate('Thursday, 18-Aug-50 02:01:18 GMT', now), Date.UTC(2050, 7, 18, 2, 1, 18));
    assert.equal(parseHttpDate('Wednesday, 18-Aug-76 02:01:18 GMT', now), Date.UTC(1976, 7, 18, 2, 1, 18));
  });

  it('parseImfFixdate takes only the preferred format', () => {
    assert.equal(parseImfFixdate('Sun, 06 Nov 1994 08:49:37 GMT'), 784111777000);
    assert.equal(parseImfFixdate('Sunday, 06-Nov-94 08:49:37 GMT'), undefined);
    assert.equal(parseImfFixdate('Sat, 31 Feb 2024 00:00:00 GMT'), undefined);
  });

  const current = { etag: '"v1"', lastModified: new Date(Date.UTC(2024, 0, 1)) };

  it('ignores an invalid If-Unmodified-Since (§13.1.4) and If-Modified-Since (§13.1.3)', () => {
    assert.equal(evaluatePreconditions('PUT', { 'if-unmodified-since': '1' }, current), 'proceed');
    assert.equal(evaluatePreconditions('GET', { 'if-modified-since': '3000' }, current), 'proceed');
    assert.equal(evaluatePreconditions('GET', { 'if-modified-since': 'Sat, 31 Feb 2024 00:00:00 GMT' }, current), 'proceed');
    assert.equal(evaluatePreconditions('PUT', { 'if-unmodified-since': 'Sun, 31 Dec 2023 00:00:00 GMT' }, current), 'failed');
    assert.equal(evaluatePreconditions('GET', { 'if-modified-since': 'Tue, 02 Jan 2024 00:00:00 GMT' }, current), 'not-modified');
  });
});

describe('issue 24: one entity-tag list parser', () => {
  it('keeps a comma inside a tag, and weak tags', () => {
    assert.deepEqual(parseEtagList('"a,b", W/"c" ,, "d"'), ['"a,b"', 'W/"c"', '"d"']);
    assert.equal(parseEtagList(' * '), '*');
    assert.equal(parseEtagList(undefined), undefined);
    assert.equal(weakMatch(parseEtagList('W/"a,b"') as string[], '"a,b"'), true);
  });

  it('matches nothing in a malformed list', () => {
    for (const bad of ['abc', '"a" "b"', '"a', 'w/"a"', '"a b"']) assert.deepEqual(parseEtagList(bad), [], bad);
  });

  it('the gateway answers 304 for a stored tag that holds a comma', async () => {
    const origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=60', ETag: '"a,b"', 'Content-Type': 'text/plain' });
      res.end('hello');
    });
    const gw = await startGateway(origin.url);
    try {
      assert.equal((await gatewaySend(gw.base, '/x')).status, 200);
      const hit = await gatewaySend(gw.base, '/x', { headers: { 'If-None-Match': '"zz", "a,b"' } });
      assert.equal(hit.status, 304);
      assert.equal(origin.seen.length, 1);
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});

describe('issue 24: over the article service', () => {
  let svc: TestService;
  let editor: string;
  let client: { id: string; secret: string };
  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral' });
    editor = await svc.addUser('ed', 'editor');
    const c = generateClientSecret();
    await svc.running.store.createClient({ clientId: 'app', secretHash: c.secretHash, userName: 'ed', scopes: ['articles:read'] });
    client = { id: 'app', secret: c.clientSecret };
  });
  after(() => svc.close());

  const XML = '<article><title>Tea</title><price currency="eur">9.90</price></article>';

  it('PUT with an invalid If-Unmodified-Since proceeds; GET with an invalid If-Modified-Since is 200', async () => {
    const created = await send(svc.base, 'PUT', '/articles/ius', { headers: { authorization: editor, 'content-type': 'application/xml' }, body: XML });
    assert.equal(created.status, 201);
    const put = await send(svc.base, 'PUT', '/articles/ius', { headers: { authorization: editor, 'content-type': 'application/xml', 'if-unmodified-since': '1' }, body: XML });
    assert.equal(put.status, 200, put.text);
    const get = await send(svc.base, 'GET', '/articles/ius', { headers: { 'if-modified-since': '3000' } });
    assert.equal(get.status, 200);
  });

  it('the embedded gateway gets each Accept the representation the service chooses', async () => {
    const created = await send(svc.base, 'PUT', '/articles/neg', { headers: { authorization: editor, 'content-type': 'application/xml' }, body: XML });
    assert.equal(created.status, 201);
    const accepts = ['application', 'image/png;a="x, application/json, y"', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/html, application/json;q=0.9'];
    for (const accept of accepts) {
      const direct = await send(svc.base, 'GET', '/articles/neg', { headers: { accept } });
      for (let i = 0; i < 2; i++) {
        const cached = await send(svc.gatewayBase!, 'GET', '/articles/neg', { headers: { accept } });
        assert.equal(cached.status, direct.status, accept);
        assert.equal(cached.headers['content-type'], direct.headers['content-type'], accept);
      }
    }
    assert.equal((await send(svc.base, 'GET', '/articles/neg', { headers: { accept: 'application' } })).status, 406);
  });

  it('answers a malformed Content-Type on a write with 400', async () => {
    const res = await send(svc.base, 'PUT', '/articles/bad-ct', { headers: { authorization: editor, 'content-type': 'application/xml; charset' }, body: XML });
    assert.equal(res.status, 400, res.text);
  });

  it('the OAuth token endpoint accepts charset=utf8 and UTF-8, case-insensitively', async () => {
    const basic = 'Basic ' + Buffer.from(`${client.id}:${client.secret}`).toString('base64');
    for (const charset of ['utf8', 'UTF-8', 'Utf8', '"utf-8"']) {
      const res = await send(svc.base, 'POST', '/oauth/token', {
        headers: { 'content-type': `application/x-www-form-urlencoded; charset=${charset}`, authorization: basic },
        body: 'grant_type=client_credentials',
      });
      assert.equal(res.status, 200, `${charset}: ${res.text}`);
    }
    const malformed = await send(svc.base, 'POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset', authorization: basic },
      body: 'grant_type=client_credentials',
    });
    assert.equal(malformed.status, 400);
    assert.equal(JSON.parse(malformed.text).error, 'invalid_request');
  });
});
