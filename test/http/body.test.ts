import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { after, before, describe, it } from '../helpers/node-test.js';
import { HttpError } from '../../src/errors/http-error.js';
import { assertUtf8, charsetOf, decodeUtf8, parseByteLimit, readRawBody } from '../../src/http/body.js';
import { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { raw, send, serve, type Served } from '../middleware/harness.js';

/** A Request fed by hand, for what a real HTTP parser never produces (a short body that ends). */
function fakeRequest(headers: Record<string, string>): Request {
  const req = new Request(new Socket());
  req.headers = headers;
  return req;
}

describe('parseByteLimit()', () => {
  it('reads numbers and b/kb/mb/gb strings in binary units', () => {
    assert.equal(parseByteLimit(512), 512);
    assert.equal(parseByteLimit('512'), 512);
    assert.equal(parseByteLimit('10b'), 10);
    assert.equal(parseByteLimit('100kb'), 102_400);
    assert.equal(parseByteLimit('1.5MB'), 1_572_864);
    assert.equal(parseByteLimit('1gb'), 1024 ** 3);
  });

  it('throws a TypeError for anything else', () => {
    for (const bad of ['lots', '10 tb', '-1kb', ''] as const) assert.throws(() => parseByteLimit(bad), TypeError);
    assert.throws(() => parseByteLimit(-1), TypeError);
    assert.throws(() => parseByteLimit(Number.NaN), TypeError);
  });
});

describe('charset helpers', () => {
  it('reads the charset parameter, quoted or not, lower-cased', () => {
    assert.equal(charsetOf('text/plain; Charset="UTF-8"'), 'utf-8');
    assert.equal(charsetOf('application/json;charset=latin1'), 'latin1');
    assert.equal(charsetOf('application/json'), undefined);
  });

  it('accepts utf-8, us-ascii and no charset; refuses others with 415 ROA_ERR_UNSUPPORTED_CHARSET', () => {
    for (const ok of ['application/json', 'application/json; charset=utf-8', 'text/plain; charset=US-ASCII']) assertUtf8(ok);
    assert.throws(() => assertUtf8('application/json; charset=iso-8859-1'), (e: HttpError) => e.status === 415 && e.code === 'ROA_ERR_UNSUPPORTED_CHARSET');
  });

  it('decodes UTF-8, drops a BOM, and refuses malformed bytes with 400', () => {
    assert.equal(decodeUtf8(Buffer.from('\uFEFFé€')), 'é€');
    assert.throws(() => decodeUtf8(Buffer.from([0x7b, 0xff, 0x7d])), (e: HttpError) => e.status === 400 && e.code === 'ROA_ERR_INVALID_UTF8');
  });
});

describe('readRawBody() on a hand-fed request', () => {
  it('answers 400 when the body ends short of its Content-Length', async () => {
    const req = fakeRequest({ 'content-length': '10' });
    const read = readRawBody(req);
    req.push(Buffer.from('abc'));
    req.push(null);
    await assert.rejects(read, (e: HttpError) => e.status === 400 && e.code === 'ROA_ERR_BODY_LENGTH_MISMATCH');
  });

  it('shares one read between concurrent callers and caches the bytes on req.rawBody', async () => {
    const req = fakeRequest({ 'transfer-encoding': 'chunked' });
    const a = readRawBody(req);
    const b = readRawBody(req);
    req.push(Buffer.from('hello'));
    req.push(null);
    const bytes = await a;
    // One read: both callers get the very same Buffer.
    assert.equal(await b, bytes);
    assert.equal(bytes.toString(), 'hello');
    assert.equal(req.rawBody, bytes);
    assert.equal(await readRawBody(req), bytes);
  });

  it("holds each reader to its own limit, also when another reader's larger one read the body", async () => {
    const req = fakeRequest({ 'transfer-encoding': 'chunked' });
    const big = readRawBody(req, { limit: 100 });
    const small = readRawBody(req, { limit: 4 });
    req.push(Buffer.from('hello'));
    req.push(null);
    assert.equal((await big).toString(), 'hello');
    await assert.rejects(small, (e: HttpError) => e.status === 413 && e.code === 'ROA_ERR_BODY_TOO_LARGE');
    // Cached on req.rawBody now: a later reader's limit still holds.
    await assert.rejects(readRawBody(req, { limit: 4 }), (e: HttpError) => e.status === 413);
    assert.equal((await readRawBody(req, { limit: 5 })).toString(), 'hello');
  });

  it('gives an empty buffer when there is no body (no Content-Length, no Transfer-Encoding)', async () => {
    assert.equal((await readRawBody(fakeRequest({}))).length, 0);
  });

  it('rejects a bad limit instead of throwing synchronously', async () => {
    await assert.rejects(readRawBody(fakeRequest({ 'content-length': '1' }), { limit: 'huge' }), TypeError);
  });
});

describe('readRawBody() over HTTP', () => {
  let srv: Served;
  const seen: unknown[] = [];
  before(async () => {
    srv = await serve((app) => {
      app.post('/raw', async (req: Request, res: Response) => {
        const limit = typeof req.query.limit === 'string' ? req.query.limit : undefined;
        const timeoutMs = typeof req.query.timeout === 'string' ? Number(req.query.timeout) : undefined;
        try {
          const bytes = await readRawBody(req, { limit, timeoutMs });
          // readableFlowing stays null when the chunks went straight from node's parser to roa (Request.push).
          res.json({ length: bytes.length, again: (await readRawBody(req)) === bytes, flowing: req.readableFlowing });
        } catch (err) {
          seen.push(err);
          throw err;
        }
      });
      // The body is read only after it has arrived and sits in the stream's buffer: the event-driven path.
      app.post('/late', async (req: Request, res: Response) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        const limit = typeof req.query.limit === 'string' ? req.query.limit : undefined;
        try {
          const bytes = await readRawBody(req, { limit });
          res.json({ length: bytes.length, text: bytes.toString(), flowing: req.readableFlowing });
        } catch (err) {
          seen.push(err);
          throw err;
        }
      });
      // `flowing: null` below is the incomingMessage fast path's doing, so it runs here even under
      // ROA_FAST_PATHS=0; test/http/fast-paths reads bodies both ways.
    }, { fastPaths: { incomingMessage: true } });
  });
  after(() => srv.close());

  it('reads the body once; a second call returns the cached buffer', async () => {
    const res = await send(srv.base, 'POST', '/raw', { body: 'x'.repeat(1000) });
    assert.deepEqual(res.json, { length: 1000, again: true, flowing: null });
  });

  it('reads a body that arrived before anyone asked for it (through the stream), also chunked', async () => {
    assert.deepEqual((await send(srv.base, 'POST', '/late', { body: 'hello' })).json, { length: 5, text: 'hello', flowing: true });
    const out = await raw(srv.port, ['POST /late HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n'], 1000);
    assert.match(out, /^HTTP\/1\.1 200 /);
    assert.match(out, /"text":"abcde"/);
    assert.equal((await send(srv.base, 'POST', '/late?limit=4', { body: 'hello' })).status, 413);
  });

  it('reads a chunked body straight from the parser, chunk by chunk', async () => {
    const out = await raw(srv.port, [
      'POST /raw HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
      '5\r\nhello\r\n', 30, '6\r\n world\r\n', 30, '0\r\n\r\n',
    ], 1000);
    assert.match(out, /^HTTP\/1\.1 200 /);
    assert.match(out, /"length":11,"again":true,"flowing":null/);
  });

  it('keeps the connection usable after a body refused while streaming (the rest is discarded)', async () => {
    const out = await raw(srv.port, [
      'POST /raw?limit=4 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n', 30,
      '5\r\nworld\r\n0\r\n\r\n',
      'POST /raw HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok',
    ], 1000);
    assert.match(out, /^HTTP\/1\.1 413 /);
    assert.match(out, /HTTP\/1\.1 200 [^]*"length":2/);
  });

  it('refuses a declared Content-Length over the default 100 KiB with 413, before reading', async () => {
    const res = await send(srv.base, 'POST', '/raw', { body: Buffer.alloc(100 * 1024 + 1) });
    assert.equal(res.status, 413);
    assert.equal(res.json.code, 'ROA_ERR_BODY_TOO_LARGE');
    assert.equal((await send(srv.base, 'POST', '/raw', { body: Buffer.alloc(100 * 1024) })).status, 200);
  });

  it('honours a custom limit', async () => {
    assert.equal((await send(srv.base, 'POST', '/raw?limit=1kb', { body: 'x'.repeat(1025) })).status, 413);
    assert.equal((await send(srv.base, 'POST', '/raw?limit=1kb', { body: 'x'.repeat(1024) })).status, 200);
  });

  it('stops a chunked body at the limit while streaming: 413 before the upload ends', async () => {
    const out = await raw(srv.port, [
      'POST /raw?limit=20 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      'f\r\n' + 'a'.repeat(15) + '\r\n',
      'f\r\n' + 'b'.repeat(15) + '\r\n',
      400,
    ], 300);
    assert.match(out, /^HTTP\/1\.1 413 /);
    assert.match(out, /ROA_ERR_BODY_TOO_LARGE/);
  });

  it('refuses a Content-Encoding it cannot decode with 415 and Accept-Encoding naming the ones it can', async () => {
    for (const coding of ['compress', 'zstd', 'gzip, br']) {
      const res = await send(srv.base, 'POST', '/raw', { headers: { 'content-encoding': coding }, body: 'xx' });
      assert.equal(res.status, 415, coding);
      assert.equal(res.json.code, 'ROA_ERR_UNSUPPORTED_ENCODING');
      assert.equal(res.headers['accept-encoding'], 'gzip, deflate, br, identity');
    }
    assert.equal((await send(srv.base, 'POST', '/raw', { headers: { 'content-encoding': 'identity' }, body: 'xx' })).status, 200);
  });

  it('answers a body slower than the time-out with 408 and closes the connection', async () => {
    const out = await raw(srv.port, ['POST /raw?timeout=100 HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc', 2000], 1500);
    assert.match(out, /^HTTP\/1\.1 408 /);
    assert.match(out, /Connection: close/i);
    assert.match(out, /ROA_ERR_BODY_TIMEOUT/);
  });

  it('times out only the reads past their own deadline when several are open', async () => {
    const slow = () => raw(srv.port, ['POST /raw?timeout=100 HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc', 2000], 1500);
    const finishing = raw(srv.port, ['POST /raw?timeout=2000 HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nConnection: close\r\n\r\nabc', 150, 'def'], 1500);
    const [a, b, c] = await Promise.all([slow(), finishing, slow()]);
    assert.match(a, /^HTTP\/1\.1 408 /);
    assert.match(b, /^HTTP\/1\.1 200 [^]*"length":6/);
    assert.match(c, /^HTTP\/1\.1 408 /);
  });

  it('turns a client abort into 400 ROA_ERR_REQUEST_ABORTED', async () => {
    seen.length = 0;
    await raw(srv.port, ['POST /raw HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc', 50, -1], 500);
    for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(seen.length, 1);
    assert.equal((seen[0] as HttpError).status, 400);
    assert.equal((seen[0] as HttpError).code, 'ROA_ERR_REQUEST_ABORTED');
  });
});
