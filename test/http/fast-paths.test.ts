/**
 * @module test/http/fast-paths
 * The one switch for the Node-internals tricks: ROA_FAST_PATHS and `fastPaths` parsing, detection
 * (and what happens when it fails), and the same observable behaviour with each trick on or off.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import net, { type AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { readRawBody } from '../../src/http/body.js';
import { activeFastPaths, DETECTED_FAST_PATHS, FAST_PATH_NAMES, resolveFastPaths, type FastPaths, type FastPathsOption } from '../../src/http/fast-paths.js';
import { detectIncomingMessage, FastRequest } from '../../src/http/fast-request.js';
import { Request } from '../../src/http/request.js';
import { FastResponse, findOutHeaders, Response } from '../../src/http/response.js';
import { detectTurnFlush } from '../../src/http/turn-flush.js';
import { request, withServer } from '../helpers/server.js';

const ALL_ON: FastPaths = { incomingMessage: true, outHeaders: true, turnFlush: true };
const ALL_OFF: FastPaths = { incomingMessage: false, outHeaders: false, turnFlush: false };

/** Every configuration worth comparing: all on, all off, and each trick off alone. */
const CONFIGS: Array<[string, FastPathsOption]> = [
  ['all on', true],
  ['all off', false],
  ...FAST_PATH_NAMES.map((name): [string, FastPathsOption] => [`${name} off`, { [name]: false }]),
];

describe('resolveFastPaths', () => {
  it('reads ROA_FAST_PATHS: unset, 1, on, true for all; 0, off, false for none', () => {
    for (const value of [undefined, '', '1', 'on', 'true']) assert.deepEqual(resolveFastPaths(undefined, { ROA_FAST_PATHS: value }), ALL_ON, String(value));
    for (const value of ['0', 'off', 'false']) assert.deepEqual(resolveFastPaths(undefined, { ROA_FAST_PATHS: value }), ALL_OFF, value);
  });

  it('turns off the tricks a list names, keeping the rest', () => {
    assert.deepEqual(resolveFastPaths(undefined, { ROA_FAST_PATHS: '-turnFlush' }), { ...ALL_ON, turnFlush: false });
    assert.deepEqual(resolveFastPaths(undefined, { ROA_FAST_PATHS: '-turnFlush, -outHeaders' }), { ...ALL_ON, turnFlush: false, outHeaders: false });
  });

  it('refuses what it does not understand, at start-up', () => {
    for (const value of ['yes', 'turnFlush', '-nope', '-', '-turnFlush,outHeaders']) {
      assert.throws(() => resolveFastPaths(undefined, { ROA_FAST_PATHS: value }), /ROA_FAST_PATHS|fastPaths: unknown/, value);
    }
    assert.throws(() => resolveFastPaths({ nope: false } as FastPathsOption), /unknown fast path "nope"/);
  });

  it('lets an explicit option win over the environment', () => {
    assert.deepEqual(resolveFastPaths(true, { ROA_FAST_PATHS: '0' }), ALL_ON);
    assert.deepEqual(resolveFastPaths({ outHeaders: false }, { ROA_FAST_PATHS: '0' }), { ...ALL_ON, outHeaders: false });
    assert.deepEqual(resolveFastPaths(false, {}), ALL_OFF);
  });
});

describe('fast path detection', () => {
  it('finds every trick in place on this node', () => {
    assert.deepEqual(DETECTED_FAST_PATHS, ALL_ON);
    assert.equal(detectIncomingMessage(), true);
    assert.equal(typeof findOutHeaders(), 'symbol');
    assert.equal(detectTurnFlush(), true);
  });

  it('says no when the private parts are missing or behave otherwise', () => {
    assert.equal(detectIncomingMessage({}, new IncomingMessage(new Socket())), false, 'no _dump');
    assert.equal(detectIncomingMessage(IncomingMessage.prototype, {}), false, 'no _dumped flag');
    assert.equal(detectTurnFlush({ uncork() {} }), false, 'a socket with its own uncork');
    const plain = new ServerResponse(new IncomingMessage(new Socket()));
    const symbol = findOutHeaders(plain)!;
    // A response whose header field is already an object (as if node set it eagerly) proves nothing.
    assert.equal(findOutHeaders(plain), undefined);
    assert.equal(typeof symbol, 'symbol');
    assert.equal(findOutHeaders({ setHeader() {} } as unknown as ServerResponse), undefined, 'no such symbol');
  });

  it('runs a trick only when it is both wanted and detected', () => {
    assert.deepEqual(activeFastPaths(true, {}, ALL_OFF), ALL_OFF);
    assert.deepEqual(activeFastPaths(true, {}, { ...ALL_ON, outHeaders: false }), { ...ALL_ON, outHeaders: false });
    assert.deepEqual(activeFastPaths(undefined, { ROA_FAST_PATHS: '-incomingMessage' }, ALL_ON), { ...ALL_ON, incomingMessage: false });
  });
});

describe('createApp fastPaths', () => {
  it('tells which tricks run: the option, else ROA_FAST_PATHS, with flushPerTurn deciding turnFlush', () => {
    assert.deepEqual(createApp({ fastPaths: true }).fastPaths, ALL_ON);
    assert.deepEqual(createApp({ fastPaths: false }).fastPaths, ALL_OFF);
    assert.deepEqual(createApp({ fastPaths: { outHeaders: false } }).fastPaths, { ...ALL_ON, outHeaders: false });
    assert.deepEqual(createApp({ fastPaths: true, flushPerTurn: false }).fastPaths, { ...ALL_ON, turnFlush: false });
    assert.deepEqual(createApp({ fastPaths: false, flushPerTurn: true }).fastPaths, { ...ALL_OFF, turnFlush: true });
    const saved = process.env.ROA_FAST_PATHS;
    try {
      process.env.ROA_FAST_PATHS = '0';
      assert.deepEqual(createApp().fastPaths, ALL_OFF);
      process.env.ROA_FAST_PATHS = '-turnFlush';
      assert.deepEqual(createApp().fastPaths, { ...ALL_ON, turnFlush: false });
      process.env.ROA_FAST_PATHS = 'sometimes';
      assert.throws(() => createApp(), /ROA_FAST_PATHS/);
    } finally {
      if (saved === undefined) delete process.env.ROA_FAST_PATHS;
      else process.env.ROA_FAST_PATHS = saved;
    }
  });

  it('serves plain Request/Response and leaves sockets alone with the tricks off', async () => {
    for (const [label, option] of CONFIGS) {
      const app = createApp({ fastPaths: option });
      let seen: { fastReq: boolean; plainReq: boolean; fastRes: boolean; plainRes: boolean; uncork: boolean } | undefined;
      app.get('/', (req: Request, res: Response) => {
        seen = {
          fastReq: req instanceof FastRequest,
          plainReq: req instanceof Request,
          fastRes: res instanceof FastResponse,
          plainRes: res instanceof Response,
          uncork: req.socket.uncork !== Writable.prototype.uncork,
        };
        res.send('ok');
      });
      await withServer(app, async (base) => assert.equal((await request(base, 'GET', '/')).text, 'ok'));
      const on = app.fastPaths;
      assert.deepEqual(seen, { fastReq: on.incomingMessage, plainReq: true, fastRes: on.outHeaders, plainRes: true, uncork: on.turnFlush }, label);
    }
  });

  it('adopts the matching classes when mounted on a plain node server', async () => {
    for (const option of [true, false]) {
      const app = createApp({ fastPaths: option });
      app.post('/', async (req: Request, res: Response) => {
        const body = await readRawBody(req);
        res.json({ fast: req instanceof FastRequest && res instanceof FastResponse, body: body.toString() });
      });
      await withServer(app, async (base) => {
        const res = await request(base, 'POST', '/', { body: 'hi', headers: { 'content-type': 'text/plain' } });
        assert.deepEqual(JSON.parse(res.text), { fast: option, body: 'hi' });
      }, { plainNode: true });
    }
  });
});

/** Writes `parts` (strings, or pauses in ms) to a raw connection; resolves with all it read once the server closes it. */
async function rawExchange(port: number, parts: Array<string | number>, afterMs = 2000): Promise<{ text: string; closedByServer: boolean }> {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (text += d));
  socket.on('error', () => {});
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  await new Promise((r) => socket.once('connect', r));
  for (const part of parts) {
    if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
    else if (!socket.destroyed) socket.write(part);
  }
  const closedByServer = await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), afterMs))]);
  socket.destroy();
  return { text, closedByServer };
}

/** Starts `app` on a port, runs `fn`, closes it. */
async function onPort<T>(app: App, fn: (port: number) => Promise<T>): Promise<T> {
  const server = app.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await fn((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

function appWith(option: FastPathsOption, extra: AppOptions = {}): App {
  const app = createApp({ fastPaths: option, env: 'test', ...extra });
  app.post('/echo', async (req: Request, res: Response) => {
    const body = await readRawBody(req, { limit: 8 });
    res.json({ body: body.toString() });
  });
  app.post('/early', (_req: Request, res: Response) => res.status(403).send('no'));
  app.get('/headers', (_req: Request, res: Response) => {
    res.set('X-One', '1').append('X-Two', 'a').append('X-Two', 'b');
    res.json({ one: res.get('X-One'), two: res.get('X-Two') });
  });
  app.get('/plain', (_req: Request, res: Response) => res.send('plain'));
  app.get('/empty', (_req: Request, res: Response) => res.status(204).send('gone'));
  app.get('/later/:n', (req: Request, res: Response) => {
    // Ended outside the turn that read the request: by a timer, then by check-phase work.
    if (req.params.n === '1') setTimeout(() => res.send('timer'), 5);
    else setImmediate(() => res.send('immediate'));
  });
  return app;
}

describe('each fast path on or off: the same behaviour', () => {
  for (const [label, option] of CONFIGS) {
    it(`reads bodies, whole, chunked and refused (${label})`, async () => {
      await onPort(appWith(option), async (port) => {
        const whole = await rawExchange(port, ['POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello']);
        assert.match(whole.text, /^HTTP\/1\.1 200 [^]*\{"body":"hello"\}$/);
        const chunked = await rawExchange(port, ['POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n', 20, '2\r\nde\r\n0\r\n\r\n']);
        assert.match(chunked.text, /\{"body":"abcde"\}$/);
        // Refused while streaming; the rest is discarded and the connection serves the next request.
        const refused = await rawExchange(port, [
          'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n123456789\r\n', 20, '3\r\nabc\r\n0\r\n\r\n',
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok',
        ]);
        assert.match(refused.text, /^HTTP\/1\.1 413 [^]*HTTP\/1\.1 200 [^]*\{"body":"ok"\}$/);
      });
    });

    it(`drains an unread body after an early response, keeps the connection, cuts it past the bound (${label})`, async () => {
      await onPort(appWith(option, { maxDrainBytes: 1024 }), async (port) => {
        // Within the bound (a length unknown in advance, then one under it): drained, and the next
        // request on the connection is answered.
        const kept = await rawExchange(port, [
          'POST /early HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', 30, `320\r\n${'x'.repeat(800)}\r\n`, 30, '0\r\n\r\n',
          'POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n', 30, 'x'.repeat(1000),
          'GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        ]);
        assert.match(kept.text, /^HTTP\/1\.1 403 [^]*no[^]*HTTP\/1\.1 403 [^]*no[^]*HTTP\/1\.1 200 [^]*plain$/);
        assert.equal(kept.closedByServer, true);
        // Past the bound: the answer arrives, then the server cuts the connection.
        const cut = await rawExchange(port, [
          'POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n', 30, 'x'.repeat(4000), 30,
          'x'.repeat(4000),
        ]);
        assert.match(cut.text, /^HTTP\/1\.1 403 [^]*no$/);
        assert.equal(cut.closedByServer, true);
      });
    });

    it(`sends headers set and read by the handler, and bare bodies with the right framing (${label})`, async () => {
      await withServer(appWith(option), async (base) => {
        const headers = await request(base, 'GET', '/headers');
        assert.deepEqual(JSON.parse(headers.text), { one: '1', two: ['a', 'b'] });
        assert.equal(headers.headers['x-one'], '1');
        assert.equal(headers.headers['x-two'], 'a, b');
        const plain = await request(base, 'GET', '/plain');
        assert.equal(plain.headers['content-type'], 'text/html; charset=utf-8');
        assert.equal(plain.headers['content-length'], '5');
        assert.equal(plain.text, 'plain');
        const head = await request(base, 'HEAD', '/plain');
        assert.equal(head.headers['content-length'], '5');
        assert.equal(head.text, '');
        const empty = await request(base, 'GET', '/empty');
        assert.equal(empty.status, 204);
        assert.equal(empty.headers['content-type'], undefined);
      });
    });

    it(`answers pipelined requests in order, and responses ended later (${label})`, async () => {
      await onPort(appWith(option), async (port) => {
        const out = await rawExchange(port, [
          'GET /later/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /plain HTTP/1.1\r\nHost: x\r\n\r\nGET /later/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        ]);
        const bodies = out.text.split('\r\n\r\n').slice(1).map((b) => b.split('HTTP/1.1')[0]);
        assert.deepEqual(bodies, ['timer', 'plain', 'immediate']);
      });
    });
  }

  it('makes a plain node server serve the same through an app with fast paths off', async () => {
    const app = appWith(false);
    const server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const out = await rawExchange(port, ['POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok']);
      assert.match(out.text, /\{"body":"ok"\}$/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
