import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { HttpError } from '../../src/errors/http-error.js';
import { parseXml, type XmlElement } from '../../src/resources/representations/xml.js';
import { escapeXml, problemFromError, problemToXml, sendProblem, validationError, PROBLEM_TYPE_BASE } from '../../src/errors/problem.js';
import type { NextFunction, Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { send, serve, type Served } from '../middleware/harness.js';

describe('problemFromError()', () => {
  it('gives about:blank, the reason phrase and the status for an error with no code of its own', () => {
    assert.deepEqual(problemFromError(new HttpError(404, 'No such article'), { env: 'production' }), {
      type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such article', code: 'ROA_ERR_NOT_FOUND',
    });
    assert.equal(problemFromError(Object.assign(new Error('x'), { status: 410 })).type, 'about:blank');
  });

  it('gives a stable roa type URI per code', () => {
    const a = problemFromError(new HttpError(413, 'big', { code: 'ROA_ERR_BODY_TOO_LARGE' }));
    const b = problemFromError(new HttpError(413, 'other', { code: 'ROA_ERR_BODY_TOO_LARGE' }));
    assert.equal(a.type, `${PROBLEM_TYPE_BASE}body-too-large`);
    assert.equal(a.type, b.type);
    assert.equal(problemFromError(new HttpError(400, 'x', { type: 'https://example.com/p/x' })).type, 'https://example.com/p/x');
  });

  it('hides 5xx detail, extensions and stack in production, even when exposed', () => {
    const err = new HttpError(503, 'db-7 down', { expose: true, extensions: { host: 'db-7' } });
    const p = problemFromError(err, { env: 'production', stack: true });
    assert.deepEqual(p, { type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'ROA_ERR_SERVICE_UNAVAILABLE' });
    assert.deepEqual(problemFromError(new Error('secret'), { env: 'production' }), { type: 'about:blank', title: 'Internal Server Error', status: 500 });
  });

  it('shows messages (and the stack when asked) in development', () => {
    const p = problemFromError(new Error('boom'), { env: 'development', stack: true });
    assert.equal(p.detail, 'boom');
    assert.match(String(p.stack), /^Error: boom\n/);
    assert.equal(problemFromError(new Error('boom'), { env: 'development' }).stack, undefined);
  });

  it('shows a 4xx message only when exposed in production', () => {
    assert.equal(problemFromError(new HttpError(400, 'why', { expose: false }), { env: 'production' }).detail, undefined);
    assert.equal(problemFromError(new HttpError(400, 'why'), { env: 'production' }).detail, 'why');
  });

  it('carries validation errors as `errors: [{ field, message }]`; extensions never replace standard members', () => {
    const err = validationError([{ field: 'title', message: 'is required' }]);
    const p = problemFromError(err, { env: 'production' });
    assert.equal(p.status, 422);
    assert.deepEqual(p.errors, [{ field: 'title', message: 'is required' }]);
    const sneaky = new HttpError(400, 'm', { extensions: { status: 200, title: 'OK', detail: 'explicit', instance: '/errors/1' } });
    assert.deepEqual(problemFromError(sneaky), {
      type: 'about:blank', title: 'Bad Request', status: 400, detail: 'explicit', instance: '/errors/1', code: 'ROA_ERR_BAD_REQUEST',
    });
  });
});

describe('XML problems', () => {
  it('escapes markup and quotes, and replaces characters XML forbids', () => {
    assert.equal(escapeXml(`<a href="x">&'</a>`), '&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
    assert.equal(escapeXml('a\u0000b\u001Fc\uD800d\u{1F600}'), 'a\uFFFDb\uFFFDc\uFFFDd\u{1F600}');
  });

  it('writes RFC 9457 Appendix B: urn:ietf:rfc:7807 namespace, arrays as <i>, well-formed', () => {
    const xml = problemToXml({
      type: 'about:blank', title: 'Unprocessable Content', status: 422, detail: 'a < b && "c"',
      errors: [{ field: 'title', message: '<script>' }], 'not a name': 1, xmlish: 2,
    });
    // parseXml refuses anything not well-formed XML 1.0.
    const root = parseXml(Buffer.from(xml));
    assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<problem xmlns="urn:ietf:rfc:7807">/);
    assert.match(xml, /<errors><i><field>title<\/field><message>&lt;script&gt;<\/message><\/i><\/errors>/);
    assert.doesNotMatch(xml, /not a name|xmlish/);
    const member = (name: string) => (root.children.find((c) => typeof c !== 'string' && c.name === name) as XmlElement).children.join('');
    assert.equal(member('detail'), 'a < b && "c"');
    assert.equal(member('status'), '422');
  });
});

describe('sendProblem()', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => {
      app.get('/gone', (_req: Request, res: Response) => {
        res.set({ 'Cache-Control': 'public, max-age=600', ETag: '"1"' });
        throw new HttpError(404, 'No article <b>1</b>');
      });
      app.get('/auth', () => {
        throw new HttpError(401, 'Credentials required', { headers: { 'WWW-Authenticate': 'Basic realm="roa"' } });
      });
      app.get('/cacheable', () => {
        throw new HttpError(410, 'Gone for good', { headers: { 'Cache-Control': 'max-age=60' } });
      });
      app.get('/invalid', () => {
        throw validationError([{ field: 'price', message: 'must be > 0 & exact' }]);
      });
      app.get('/crash', () => {
        throw new Error('secret');
      });
      app.get('/late', (_req: Request, res: Response) => {
        res.writeHead(200);
        res.write('partial');
        throw new Error('late');
      });
      app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => sendProblem(req, res, err, { env: 'production' }));
    });
  });
  after(() => srv.close());

  it('answers application/problem+json without Cache-Control, with Vary: Accept and no leftover caching headers', async () => {
    const res = await send(srv.base, 'GET', '/gone');
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(res.headers['cache-control'], undefined);
    assert.equal(res.headers.etag, undefined);
    assert.match(res.headers.vary!, /Accept/);
    assert.deepEqual(res.json, { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No article <b>1</b>', code: 'ROA_ERR_NOT_FOUND' });
  });

  it('keeps a Cache-Control the error sets itself', async () => {
    assert.equal((await send(srv.base, 'GET', '/cacheable')).headers['cache-control'], 'max-age=60');
  });

  it('answers XML when the client ranks XML above JSON, JSON otherwise', async () => {
    const cases: Array<[string, string]> = [
      ['application/xml', 'xml'], ['application/problem+xml', 'xml'], ['application/json;q=0.5, application/xml', 'xml'],
      ['application/xml, application/json', 'xml'], ['application/json, application/xml', 'json'], ['*/*', 'json'],
      ['text/html', 'json'], ['application/xml;q=0.1, */*', 'json'],
    ];
    for (const [accept, want] of cases) {
      const res = await send(srv.base, 'GET', '/gone', { headers: { accept } });
      assert.equal(res.headers['content-type'], `application/problem+${want}; charset=utf-8`, accept);
    }
    const xml = await send(srv.base, 'GET', '/gone', { headers: { accept: 'application/xml' } });
    assert.equal(parseXml(Buffer.from(xml.text)).name, 'problem');
    assert.match(xml.text, /<detail>No article &lt;b&gt;1&lt;\/b&gt;<\/detail>/);
  });

  it('carries the error headers (WWW-Authenticate) and validation errors', async () => {
    assert.equal((await send(srv.base, 'GET', '/auth')).headers['www-authenticate'], 'Basic realm="roa"');
    const res = await send(srv.base, 'GET', '/invalid');
    assert.deepEqual(res.json.errors, [{ field: 'price', message: 'must be > 0 & exact' }]);
    assert.equal(res.json.type, `${PROBLEM_TYPE_BASE}validation`);
    const xml = await send(srv.base, 'GET', '/invalid', { headers: { accept: 'application/xml' } });
    assert.match(xml.text, /<errors><i><field>price<\/field><message>must be &gt; 0 &amp; exact<\/message><\/i><\/errors>/);
  });

  it('keeps 5xx details inside the process in production', async () => {
    const res = await send(srv.base, 'GET', '/crash');
    assert.deepEqual(res.json, { type: 'about:blank', title: 'Internal Server Error', status: 500 });
  });

  it('omits the body for HEAD but keeps the headers', async () => {
    const res = await send(srv.base, 'HEAD', '/gone');
    assert.equal(res.status, 404);
    assert.equal(res.text, '');
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  });

  it('destroys the socket when headers were already sent', async () => {
    await assert.rejects(send(srv.base, 'GET', '/late'));
  });
});
