/**
 * @module test/regressions/issue-24-http-service
 * Issue 24, the service side of HTTP/1.1 message handling, on a real createApp() server and raw
 * sockets: Host validation (RFC 9112 §3.2), pipelined answers that precede a malformed request,
 * `Expect: 100-continue` answered with the final status when the headers decide it (RFC 9110
 * §10.1.1), and refused bodies not drained past a bound.
 */
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from '../helpers/node-test.js';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { HttpError } from '../../src/errors/http-error.js';
import { DEFAULT_MAX_DRAIN_BYTES } from '../../src/http/unread-body.js';
import { json } from '../../src/middleware/json.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Generous: only a broken server ever waits this long. */
const DEADLINE_MS = 10_000;

interface Message {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw client connection that records everything the server writes and whether it closed. */
class RawClient {
  text = '';
  closed = false;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.text += d;
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static async open(port: number): Promise<RawClient> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new RawClient(socket);
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Resolves once `done(text)` holds; rejects when the connection closes first or the deadline passes. */
  until(done: (text: string) => boolean, what: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (done(this.text)) finish(() => resolve(this.text));
        else if (this.closed) finish(() => reject(new Error(`closed before ${what}: ${JSON.stringify(this.text.slice(0, 600))}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${what} in time: ${JSON.stringify(this.text.slice(0, 600))}`))), DEADLINE_MS);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Resolves when the server has closed the connection. */
  async closedByServer(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`connection still open: ${JSON.stringify(this.text.slice(0, 600))}`)), DEADLINE_MS);
      const check = (): void => {
        if (!this.closed) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }

  messages(): Message[] {
    return parseMessages(this.text);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/** The complete responses in `text`, in order (Content-Length framing; 1xx have no body). */
function parseMessages(text: string): Message[] {
  const out: Message[] = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) return out;
    const [statusLine, ...lines] = text.slice(at, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const status = Number(statusLine!.split(' ')[1]);
    const length = status < 200 ? 0 : Number(headers['content-length'] ?? 0);
    if (text.length < end + 4 + length) return out;
    out.push({ status, headers, body: text.slice(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
}

/** Holds while `text` has at least `n` complete final (non-1xx) responses. */
const finals = (n: number) => (text: string): boolean => parseMessages(text).filter((m) => m.status >= 200).length >= n;

async function start(setup: (app: App) => void, options: AppOptions = {}): Promise<{ port: number; close: () => Promise<void> }> {
  const app = createApp({ env: 'test', ...options });
  setup(app);
  const server: Server = app.listen(0, '127.0.0.1');
  // Longer than DEADLINE_MS: an idle keep-alive connection never closes within a test by itself.
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function routes(app: App): void {
  app.get('/a', (_req, res) => res.send('a'));
  app.get('/b', (_req, res) => res.send('b'));
  // Answers in a later turn, as a handler that awaits a store does.
  app.get('/later', (_req, res) => {
    setImmediate(() => setImmediate(() => res.send('later')));
  });
  app.post('/json', json(), (req, res) => res.json(req.body));
  // Refuses on the headers alone, before any body parser, as an auth scheme does.
  app.post('/guarded', (_req, _res, next) => next(new HttpError(401, 'Who are you?', { headers: { 'WWW-Authenticate': 'Basic realm="x"' } })), json(), (req, res) => res.json(req.body));
  // The body parser runs a turn late, when the first chunk is buffered already (read through events).
  app.post('/late', (_req, _res, next) => setImmediate(next), json({ limit: 10 }), (req, res) => res.json(req.body));
  // Reads the stream itself, without http/body.
  app.post('/stream', (req, res) => {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => res.send(String(n)));
  });
}

describe('issue 24: Host on the service (RFC 9112 §3.2)', () => {
  let srv: { port: number; close: () => Promise<void> };
  before(async () => (srv = await start(routes)));
  after(() => srv.close());

  async function ask(head: string): Promise<{ msg: Message; closed: boolean }> {
    const c = await RawClient.open(srv.port);
    try {
      c.write(head);
      await c.until(finals(1), 'a response');
      return { msg: c.messages()[0]!, closed: c.closed };
    } finally {
      c.destroy();
    }
  }

  const refused: Array<[string, string]> = [
    ['two Host lines', 'GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n'],
    ['two Host lines with the same value', 'GET /a HTTP/1.1\r\nHost: x\r\nhost: x\r\n\r\n'],
    ['a Host with a space', 'GET /a HTTP/1.1\r\nHost: a b\r\n\r\n'],
    ['a Host with a path', 'GET /a HTTP/1.1\r\nHost: a/b\r\n\r\n'],
    ['a Host with user info', 'GET /a HTTP/1.1\r\nHost: u@a\r\n\r\n'],
    ['a Host with a bad port', 'GET /a HTTP/1.1\r\nHost: a:8x\r\n\r\n'],
    ['an unclosed IP literal', 'GET /a HTTP/1.1\r\nHost: [::1\r\n\r\n'],
    ['an empty Host', 'GET /a HTTP/1.1\r\nHost:\r\n\r\n'],
    ['no Host on HTTP/1.1', 'GET /a HTTP/1.1\r\n\r\n'],
    ['two Host lines on HTTP/1.0', 'GET /a HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n'],
  ];
  for (const [name, head] of refused) {
    it(`answers ${name} with a 400 problem and closes`, async () => {
      const { msg } = await ask(head);
      assert.equal(msg.status, 400);
      assert.match(msg.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.equal(msg.headers.connection, 'close');
      const problem = JSON.parse(msg.body);
      assert.equal(problem.status, 400);
      assert.equal(problem.code, 'ROA_ERR_INVALID_HOST');
    });
  }

  const accepted: Array<[string, string]> = [
    ['a name', 'GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n'],
    ['a name and port', 'GET /a HTTP/1.1\r\nHost: example.com:8080\r\n\r\n'],
    ['an IPv4 address and port', 'GET /a HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n\r\n'],
    ['an IPv6 literal and port', 'GET /a HTTP/1.1\r\nHost: [::1]:3000\r\n\r\n'],
    ['a percent-encoded name', 'GET /a HTTP/1.1\r\nHost: caf%C3%A9.example\r\n\r\n'],
    ['no Host on HTTP/1.0', 'GET /a HTTP/1.0\r\n\r\n'],
  ];
  for (const [name, head] of accepted) {
    it(`serves a request with ${name}`, async () => {
      const { msg } = await ask(head);
      assert.equal(msg.status, 200);
      assert.equal(msg.body, 'a');
    });
  }
});

describe('issue 24: a malformed request pipelined after valid ones', () => {
  let srv: { port: number; close: () => Promise<void> };
  let unflushed: { port: number; close: () => Promise<void> };
  before(async () => {
    srv = await start(routes);
    unflushed = await start(routes, { flushPerTurn: false });
  });
  after(async () => {
    await srv.close();
    await unflushed.close();
  });

  async function pipeline(data: string, port = srv.port): Promise<{ text: string; msgs: Message[] }> {
    const c = await RawClient.open(port);
    try {
      c.write(data);
      await c.closedByServer();
      return { text: c.text, msgs: c.messages() };
    } finally {
      c.destroy();
    }
  }

  const BAD_LINE = 'GET /x HTTP/1.1\r\nHost: x\r\nBad\x7fName: y\r\n\r\n';

  it('answers the valid request first (200), then the 400, then closes', async () => {
    const { msgs } = await pipeline('GET /a HTTP/1.1\r\nHost: x\r\n\r\n' + BAD_LINE);
    assert.deepEqual(msgs.map((m) => m.status), [200, 400]);
    assert.equal(msgs[0]!.body, 'a');
    assert.match(msgs[1]!.headers['content-type'] ?? '', /^application\/problem\+json/);
  });

  it('does the same when responses are written at res.end() (flushPerTurn: false)', async () => {
    const { msgs } = await pipeline('GET /a HTTP/1.1\r\nHost: x\r\n\r\n' + BAD_LINE, unflushed.port);
    assert.deepEqual(msgs.map((m) => m.status), [200, 400]);
  });

  it('leaves the body out of the 400 when the refused request is a HEAD behind a valid one', async () => {
    const { text } = await pipeline('GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /x HTTP/1.1\r\nHost: x\r\nBad\x7fName: y\r\n\r\n');
    // The 400 to a HEAD has a Content-Length but no body, so the text ends with its header section.
    assert.match(text, /^HTTP\/1\.1 200 [^]*\r\n\r\naHTTP\/1\.1 400 [^]*\r\n\r\n$/);
  });

  it('waits for a handler that answers in a later turn', async () => {
    const { msgs } = await pipeline('GET /later HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n' + BAD_LINE);
    assert.deepEqual(msgs.map((m) => [m.status, m.body.slice(0, 5)]), [[200, 'later'], [200, 'a'], [400, '{"typ']]);
  });

  it('lets out a response already given to the request whose chunked body is malformed, then closes', async () => {
    const bad = 'POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n';
    const { msgs } = await pipeline('GET /a HTTP/1.1\r\nHost: x\r\n\r\n' + bad);
    assert.deepEqual(msgs.map((m) => m.status), [200, 401]);
  });

  it('answers the valid request when the error is in the next request\'s chunked body', async () => {
    const bad = 'POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n';
    const { msgs } = await pipeline('GET /a HTTP/1.1\r\nHost: x\r\n\r\n' + bad);
    assert.equal(msgs[0]!.status, 200);
    assert.equal(msgs[0]!.body, 'a');
    assert.equal(msgs.length, 2);
    assert.equal(msgs[1]!.status, 400);
  });
});

describe('issue 24: Expect: 100-continue is answered with the final status when the headers decide it', () => {
  let srv: { port: number; close: () => Promise<void> };
  before(async () => (srv = await start(routes)));
  after(() => srv.close());

  it('413 without 100 Continue for a declared body over the parser limit, and closes', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write(`POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\nExpect: 100-continue\r\n\r\n`);
      await c.until(finals(1), 'a final response');
      assert.doesNotMatch(c.text, /100 Continue/);
      const [msg] = c.messages();
      assert.equal(msg!.status, 413);
      // Not closed at once (a reset could destroy the 413 before the client reads it, RFC 9112 §9.6):
      // what was sent past the bound cuts the connection.
      await c.closedByServer();
    } finally {
      c.destroy();
    }
  });

  it('401 without 100 Continue when a layer refuses before the body is read, and closes', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write('POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n');
      await c.until(finals(1), 'a final response');
      assert.doesNotMatch(c.text, /100 Continue/);
      const [msg] = c.messages();
      assert.equal(msg!.status, 401);
      assert.equal(msg!.headers.connection, 'close');
      await c.closedByServer();
    } finally {
      c.destroy();
    }
  });

  it('sends 100 Continue when a body parser starts reading, then the answer', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write('POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nExpect: 100-continue\r\n\r\n');
      await c.until((t) => t.includes('100 Continue\r\n\r\n'), '100 Continue');
      c.write('{"a":1}');
      await c.until(finals(1), 'a final response');
      const msgs = c.messages();
      assert.deepEqual(msgs.map((m) => m.status), [100, 200]);
      assert.equal(msgs[1]!.body, '{"a":1}');
      assert.notEqual(msgs[1]!.headers.connection, 'close');
      // The connection is still usable.
      c.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
      await c.until(finals(2), 'the second response');
    } finally {
      c.destroy();
    }
  });

  it('sends 100 Continue when a handler reads the stream itself', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write('POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n');
      await c.until((t) => t.includes('100 Continue\r\n\r\n'), '100 Continue');
      c.write('hello');
      await c.until(finals(1), 'a final response');
      assert.equal(c.messages()[1]!.body, '5');
    } finally {
      c.destroy();
    }
  });
});

describe('issue 24: refused bodies are not drained past a bound', () => {
  let srv: { port: number; close: () => Promise<void> };
  let small: { port: number; close: () => Promise<void> };
  before(async () => {
    srv = await start(routes);
    small = await start(routes, { maxDrainBytes: 10 });
  });
  after(async () => {
    await srv.close();
    await small.close();
  });

  it('defaults to 64 KiB', () => {
    assert.equal(DEFAULT_MAX_DRAIN_BYTES, 64 * 1024);
  });

  it('closes after a 413 instead of reading a 1 GiB declared body, once 64 KiB more has been drained', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write(`POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\n\r\n`);
      c.write(Buffer.alloc(256 * 1024, 0x20));
      await c.until(finals(1), 'a final response');
      const [msg] = c.messages();
      assert.equal(msg!.status, 413);
      // Not closed at once (a reset could destroy the 413 before the client reads it, RFC 9112 §9.6):
      // what was sent past the bound cuts the connection.
      await c.closedByServer();
    } finally {
      c.destroy();
    }
  });

  it('drains at most 64 KiB of a refused chunked body, then closes', async () => {
    const c = await RawClient.open(srv.port);
    try {
      const chunk = 'x'.repeat(200 * 1024);
      c.write(`POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      await c.until(finals(1), 'a final response');
      assert.equal(c.messages()[0]!.status, 413);
      // The length is unknown, so the answer cannot say how much will be drained; the bound holds after it.
      const more = 'y'.repeat(DEFAULT_MAX_DRAIN_BYTES + 1);
      c.write(`${more.length.toString(16)}\r\n${more}\r\n`);
      await c.closedByServer();
    } finally {
      c.destroy();
    }
  });

  it('drains at most 64 KiB of a chunked body refused after it started to arrive, then closes', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write('POST /late HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n14\r\n["aaaaaaaaaaaaaaaaa"\r\n');
      await c.until(finals(1), 'a final response');
      assert.equal(c.messages()[0]!.status, 413);
      const more = 'y'.repeat(DEFAULT_MAX_DRAIN_BYTES + 1);
      c.write(`${more.length.toString(16)}\r\n${more}\r\n`);
      await c.closedByServer();
    } finally {
      c.destroy();
    }
  });

  it('keeps the connection after a 401 when less than 64 KiB of a chunked body follows', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write('POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      await c.until(finals(1), 'a final response');
      assert.equal(c.messages()[0]!.status, 401);
      const rest = 'z'.repeat(DEFAULT_MAX_DRAIN_BYTES - 100);
      c.write(`${rest.length.toString(16)}\r\n${rest}\r\n0\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n`);
      await c.until(finals(2), 'the next response on the connection');
      assert.equal(c.messages()[1]!.body, 'a');
    } finally {
      c.destroy();
    }
  });

  it('closes after a 401 sent before a body over 64 KiB arrived, once the bound is passed', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write(`POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${DEFAULT_MAX_DRAIN_BYTES + 1}\r\n\r\n`);
      await c.until(finals(1), 'a final response');
      assert.equal(c.messages()[0]!.status, 401);
      c.write(Buffer.alloc(DEFAULT_MAX_DRAIN_BYTES + 1, 0x20));
      await c.closedByServer();
    } finally {
      c.destroy();
    }
  });

  it('keeps the connection after a 401 when the unread body is at most 64 KiB, and drains it', async () => {
    const c = await RawClient.open(srv.port);
    try {
      c.write(`POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${DEFAULT_MAX_DRAIN_BYTES}\r\n\r\n`);
      await c.until(finals(1), 'a final response');
      assert.equal(c.messages()[0]!.status, 401);
      assert.notEqual(c.messages()[0]!.headers.connection, 'close');
      c.write(Buffer.alloc(DEFAULT_MAX_DRAIN_BYTES, 0x20));
      c.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
      await c.until(finals(2), 'the next response on the connection');
      assert.equal(c.messages()[1]!.body, 'a');
    } finally {
      c.destroy();
    }
  });

  it('takes the bound from createApp({ maxDrainBytes })', async () => {
    const c = await RawClient.open(small.port);
    try {
      c.write('POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n');
      await c.until(finals(1), 'a final response');
      c.write('01234567890');
      await c.closedByServer();
    } finally {
      c.destroy();
    }
    const d = await RawClient.open(small.port);
    try {
      d.write('POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n');
      await d.until(finals(1), 'a final response');
      assert.notEqual(d.messages()[0]!.headers.connection, 'close');
    } finally {
      d.destroy();
    }
    const e = await RawClient.open(small.port);
    try {
      e.write('POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      await e.until(finals(1), 'a final response');
      e.write('b\r\n01234567890\r\n');
      await e.closedByServer();
    } finally {
      e.destroy();
    }
  });

  it('keeps the connection when a large body was read in full', async () => {
    const c = await RawClient.open(srv.port);
    try {
      const body = JSON.stringify({ s: 'y'.repeat(90 * 1024) });
      c.write(`POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}GET /a HTTP/1.1\r\nHost: x\r\n\r\n`);
      await c.until(finals(2), 'both responses');
      assert.deepEqual(c.messages().map((m) => m.status), [200, 200]);
    } finally {
      c.destroy();
    }
  });

  it('refuses a bad maxDrainBytes when the app is created', () => {
    assert.throws(() => createApp({ maxDrainBytes: -1 }), /maxDrainBytes/);
  });
});

describe('issue 24: the article service (startService) applies the same rules', () => {
  let svc: TestService;
  let port = 0;
  let editor = '';
  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral' });
    port = svc.running.address.port;
    editor = await svc.addUser('ed', 'editor');
  });
  after(() => svc.close());

  it('answers two Host lines with a 400 problem', async () => {
    const c = await RawClient.open(port);
    try {
      c.write('GET /articles HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n');
      await c.until(finals(1), 'a response');
      assert.equal(c.messages()[0]!.status, 400);
      assert.equal(JSON.parse(c.messages()[0]!.body).code, 'ROA_ERR_INVALID_HOST');
    } finally {
      c.destroy();
    }
  });

  it('answers an anonymous write expecting 100-continue with 401 alone', async () => {
    const c = await RawClient.open(port);
    try {
      c.write(`POST /articles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\nExpect: 100-continue\r\n\r\n`);
      await c.until(finals(1), 'a final response');
      assert.doesNotMatch(c.text, /100 Continue/);
      assert.equal(c.messages()[0]!.status, 401);
      await c.closedByServer();
    } finally {
      c.destroy();
    }
  });

  it('sends 100 Continue to an editor\'s write and creates the article', async () => {
    const body = JSON.stringify({ title: 'Continued', price: { amount: '1.5000', currency: 'usd' } });
    const c = await RawClient.open(port);
    try {
      c.write(`POST /articles HTTP/1.1\r\nHost: x\r\nAuthorization: ${editor}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
      await c.until((t) => t.includes('100 Continue\r\n\r\n'), '100 Continue');
      c.write(body);
      await c.until(finals(1), 'a final response');
      assert.deepEqual(c.messages().map((m) => m.status), [100, 201]);
    } finally {
      c.destroy();
    }
  });

  it('through the gateway: the origin decides, so an anonymous write gets 401 without 100 Continue', async () => {
    const c = await RawClient.open(svc.running.gatewayAddress!.port);
    try {
      c.write(`POST /articles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\nExpect: 100-continue\r\n\r\n`);
      await c.until(finals(1), 'a final response');
      assert.doesNotMatch(c.text, /100 Continue/);
      assert.equal(c.messages()[0]!.status, 401);
    } finally {
      c.destroy();
    }
  });

  it("through the gateway: the origin's 100 Continue reaches an editor, whose write is created", async () => {
    const body = JSON.stringify({ title: 'Continued via gateway', price: { amount: '1.5000', currency: 'usd' } });
    const c = await RawClient.open(svc.running.gatewayAddress!.port);
    try {
      c.write(`POST /articles HTTP/1.1\r\nHost: x\r\nAuthorization: ${editor}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
      await c.until((t) => t.includes('100 Continue\r\n\r\n'), '100 Continue');
      c.write(body);
      await c.until(finals(1), 'a final response');
      assert.deepEqual(c.messages().map((m) => m.status), [100, 201]);
    } finally {
      c.destroy();
    }
  });
});
