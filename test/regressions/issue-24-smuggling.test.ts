/**
 * @module test/regressions/issue-24-smuggling
 * Issue 24, item 1 (gateway side): the embedded gateway forwards exactly the message it received,
 * framed for the origin, or refuses it; it never lets a request body become the next request on a
 * pooled upstream connection, nor lets a response answer another URL; Host is checked as RFC 9112
 * §3.2 requires and forwarded once.
 *
 * Every exchange is written byte for byte on a raw socket. The origin is a keep-alive node server
 * that records each request it parses, so "one request per client request" is counted where a
 * smuggled request would show up.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from '../helpers/node-test.js';
import { rawExchange, send, startGateway, type Running } from '../gateway/gateway-helpers.js';
import { send as sendToService, startTestService, type TestService } from '../helpers/service.js';

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  headers: IncomingHttpHeaders;
  body: string;
}

interface CountingOrigin {
  url: string;
  server: Server;
  seen: Seen[];
  /** Upstream connections the origin has accepted, in order. */
  sockets: Socket[];
  /** Answers the held `/late` requests. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A keep-alive origin that records every request it parses and answers with the method and URL
 * it read (cacheable for GET, so a wrong answer would also be stored). `/big` streams a large
 * uncacheable body; `/early` answers before reading the request body; `/hold` never answers;
 * `/late` answers when told to.
 */
async function startCountingOrigin(): Promise<CountingOrigin> {
  const seen: Seen[] = [];
  const sockets: Socket[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/late') {
      // Answered (16 MiB, more than socket buffers hold) only when the test calls release().
      seen.push({ method: req.method!, url: req.url, rawHeaders: req.rawHeaders, headers: req.headers, body: '' });
      held.push(res);
      return;
    }
    if (req.url === '/hold') {
      // Seen at once; never answered, never read: the client's body is the gateway's to abandon.
      seen.push({ method: req.method!, url: req.url, rawHeaders: req.rawHeaders, headers: req.headers, body: '' });
      return;
    }
    if (req.url === '/early') {
      seen.push({ method: req.method!, url: req.url, rawHeaders: req.rawHeaders, headers: req.headers, body: '' });
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' });
      res.end('early');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('latin1');
      seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, headers: req.headers, body });
      if (req.url === '/big') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' });
        const block = Buffer.alloc(64 * 1024, 0x61);
        let left = 256;
        const pump = (): void => {
          while (left > 0 && !res.destroyed) {
            left--;
            if (!res.write(block)) {
              res.once('drain', pump);
              return;
            }
          }
          if (left === 0) res.end();
        };
        pump();
        return;
      }
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Cache-Control': req.method === 'GET' ? 'max-age=600' : 'no-store',
      });
      res.end(JSON.stringify({ method: req.method, url: req.url }));
    });
  });
  server.on('connection', (s: Socket) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    seen,
    sockets,
    release() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' });
        res.end(Buffer.alloc(16 * 1024 * 1024, 0x62));
      }
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** What the issue smuggled: a request line and a form body whose declared length exceeds what follows. */
const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: origin.example\r\n' +
  'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 400\r\n\r\ntitle=';

const chunked = (body: string): string => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

type Framing = 'none' | 'length' | 'chunked' | 'length+chunked' | 'connection-lists-length' | 'connection-lists-te';

/** The head's framing lines and the body bytes for one framing of `body`. */
function framed(framing: Framing, body: string): { lines: string; bytes: string } {
  const length = `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  switch (framing) {
    case 'none':
      return { lines: 'Connection: close\r\n', bytes: '' };
    case 'length':
      return { lines: `Connection: close\r\n${length}`, bytes: body };
    case 'chunked':
      return { lines: 'Connection: close\r\nTransfer-Encoding: chunked\r\n', bytes: chunked(body) };
    case 'length+chunked':
      return { lines: `Connection: close\r\n${length}Transfer-Encoding: chunked\r\n`, bytes: chunked(body) };
    case 'connection-lists-length':
      return { lines: `Connection: close, Content-Length\r\n${length}`, bytes: body };
    case 'connection-lists-te':
      return { lines: 'Connection: close, Transfer-Encoding\r\nTransfer-Encoding: chunked\r\n', bytes: chunked(body) };
  }
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];
const FRAMINGS: Framing[] = ['none', 'length', 'chunked', 'length+chunked', 'connection-lists-length', 'connection-lists-te'];

describe('issue 24: the gateway frames every forwarded request (raw sockets, pooled upstream)', () => {
  let origin: CountingOrigin;
  let gw: Running;
  let n = 0;

  before(async () => {
    origin = await startCountingOrigin();
    gw = await startGateway(origin.url);
  });
  after(async () => {
    await gw.close();
    await origin.close();
  });

  /** A fresh client's GET: it must get its own URL's content, the origin must see it once. */
  async function assertFollowUpIsOwn(label: string): Promise<void> {
    const path = `/victim-${++n}`;
    const before = origin.seen.length;
    const first = await send(gw.base, path);
    assert.equal(first.status, 200, `${label}: follow-up status`);
    assert.deepEqual(JSON.parse(first.body), { method: 'GET', url: path }, `${label}: the follow-up got another URL's response`);
    const again = await send(gw.base, path);
    assert.equal(again.headers['x-cache'], 'HIT', `${label}: the follow-up was stored`);
    assert.deepEqual(JSON.parse(again.body), { method: 'GET', url: path }, `${label}: a wrong response was stored`);
    assert.deepEqual(origin.seen.slice(before).map((s) => `${s.method} ${s.url}`), [`GET ${path}`], `${label}: the origin saw exactly the follow-up`);
  }

  for (const method of METHODS) {
    for (const framing of FRAMINGS) {
      const refused = framing === 'length+chunked' || ((method === 'GET' || method === 'HEAD') && framing !== 'none');
      it(`${method} with ${framing} framing is ${refused ? 'refused with 400' : 'forwarded as one request'}`, async () => {
        const label = `${method} ${framing}`;
        const path = `/target-${++n}`;
        const { lines, bytes } = framed(framing, SMUGGLED);
        const before = origin.seen.length;
        const reply = await rawExchange(gw.base, `${method} ${path} HTTP/1.1\r\nHost: shop.example\r\n${lines}\r\n${bytes}`);
        const seen = origin.seen.slice(before);
        if (refused) {
          assert.equal(reply.status, 400, `${label}: ${reply.text}`);
          assert.deepEqual(seen, [], `${label}: nothing reached the origin`);
        } else {
          assert.equal(reply.status, 200, `${label}: ${reply.text}`);
          assert.deepEqual(seen.map((s) => `${s.method} ${s.url}`), [`${method} ${path}`], `${label}: the origin saw one request`);
          assert.equal(seen[0]!.body, framing === 'none' ? '' : SMUGGLED, `${label}: the body arrived whole, as a body`);
          if (method !== 'HEAD') assert.deepEqual(JSON.parse(reply.body), { method, url: path });
        }
        await assertFollowUpIsOwn(label);
      });
    }
  }

  it("the issue's DELETE with a chunked body holding a GET with a form body does not poison the next GET", async () => {
    const body = 'GET /article/1 HTTP/1.1\r\nHost: shop.example\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\nx=1&y';
    const before = origin.seen.length;
    const reply = await rawExchange(gw.base, `DELETE /article/999 HTTP/1.1\r\nHost: shop.example\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked(body)}`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(origin.seen.slice(before).map((s) => [s.method, s.url, s.body]), [['DELETE', '/article/999', body]]);
    await assertFollowUpIsOwn('issue DELETE');
  });

  it('a GET with a body, then another GET: the second gets its own content', async () => {
    const before = origin.seen.length;
    const reply = await rawExchange(gw.base, `GET /article/1 HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 12\r\nConnection: close\r\n\r\nhello=world!`);
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.text, /application\/problem\+json/);
    assert.deepEqual(origin.seen.slice(before), []);
    await assertFollowUpIsOwn('GET with body');
  });

  it('a GET with Content-Length: 0 is an ordinary GET', async () => {
    const before = origin.seen.length;
    const reply = await rawExchange(gw.base, `GET /empty-${++n} HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    assert.equal(reply.status, 200, reply.text);
    const seen = origin.seen.slice(before);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers['content-length'], undefined, 'no framing for the empty forwarded GET');
    await assertFollowUpIsOwn('GET CL 0');
  });

  it('a body of another method keeps its exact bytes with Connection listing both framing fields', async () => {
    const body = 'a'.repeat(70_000);
    const before = origin.seen.length;
    const reply = await rawExchange(gw.base, `OPTIONS /opts HTTP/1.1\r\nHost: shop.example\r\nConnection: close, Content-Length, Transfer-Encoding\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(body)}`);
    assert.equal(reply.status, 200, reply.text);
    const seen = origin.seen.slice(before);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.body, body);
    await assertFollowUpIsOwn('OPTIONS long chunked');
  });
});

describe('issue 24: upstream connections whose exchange the gateway did not finish are not reused', () => {
  let origin: CountingOrigin;
  let gw: Running;

  before(async () => {
    origin = await startCountingOrigin();
    // Longer than any wait below: a connection closed in time was closed by the gateway's choice.
    gw = await startGateway(origin.url, { upstreamTimeoutMs: 120_000 });
  });
  after(async () => {
    await gw.close();
    await origin.close();
  });

  /** Resolves true once `s` closes, false if it is still open after a wide deadline. */
  const closed = (s: Socket): Promise<boolean> => new Promise((resolve) => {
    if (s.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), 30_000);
    s.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

  /** Connects a raw client and resolves with it once `until` matches what it has received. */
  async function rawClient(bytes: string, until: RegExp): Promise<Socket> {
    const { connect } = await import('node:net');
    const client = connect(gw.base.port, gw.base.host);
    let text = '';
    await new Promise<void>((resolve) => {
      client.on('data', (c: Buffer) => {
        text += c.toString('latin1');
        if (until.test(text)) resolve();
      });
      client.write(bytes);
    });
    return client;
  }

  it('a response the client stopped reading: its upstream connection is closed, the next request gets its own content', async () => {
    const client = await rawClient('GET /big HTTP/1.1\r\nHost: shop.example\r\n\r\n', /^HTTP\/1\.1 200/);
    const upstreamSocket = origin.sockets.at(-1)!;
    client.destroy();
    assert.ok(await closed(upstreamSocket), 'the half-read upstream connection was closed');
    const r = await send(gw.base, '/after-big');
    assert.deepEqual(JSON.parse(r.body), { method: 'GET', url: '/after-big' });
  });

  it('a client gone before the answer: the upstream response is dropped with its connection', async () => {
    const before = origin.seen.length;
    const { connect } = await import('node:net');
    const client = connect(gw.base.port, gw.base.host);
    client.on('error', () => {});
    // Credentials: passed through (not a fill, which would keep reading to store).
    client.write('GET /late HTTP/1.1\r\nHost: shop.example\r\nAuthorization: Basic eDp5\r\n\r\n');
    const poll = async (done: () => boolean | Promise<boolean>): Promise<void> => {
      for (let i = 0; i < 600 && !(await done()); i++) await new Promise((r) => setTimeout(r, 50));
    };
    await poll(() => origin.seen.length > before);
    const upstreamSocket = origin.sockets.at(-1)!;
    client.destroy();
    const connections = (): Promise<number> => new Promise((resolve) => gw.gateway.server.getConnections((_e, n) => resolve(n)));
    await poll(async () => (await connections()) === 0);
    origin.release();
    assert.ok(await closed(upstreamSocket), 'the unread upstream response\'s connection was closed');
    const r = await send(gw.base, '/after-late');
    assert.deepEqual(JSON.parse(r.body), { method: 'GET', url: '/after-late' });
  });

  it('a client that aborts its body before any response: the half-sent upstream request is dropped with its connection', async () => {
    const before = origin.seen.length;
    const { connect } = await import('node:net');
    const client = connect(gw.base.port, gw.base.host);
    client.on('error', () => {});
    client.write('PUT /hold HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 1000\r\n\r\n0123456789');
    for (let i = 0; i < 600 && origin.seen.length === before; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(origin.seen.at(-1)?.url, '/hold');
    const upstreamSocket = origin.sockets.at(-1)!;
    client.destroy();
    assert.ok(await closed(upstreamSocket), 'the upstream connection owed the rest of the body was closed');
    const r = await send(gw.base, '/after-hold');
    assert.deepEqual(JSON.parse(r.body), { method: 'GET', url: '/after-hold' });
  });

  it('an early response while the client aborts its body: the half-sent upstream request is abandoned with its connection', async () => {
    // The whole response (its last chunk) arrives before the client gives up on its body.
    const client = await rawClient('POST /early HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 1000\r\n\r\n0123456789', /\r\n0\r\n\r\n$/);
    const upstreamSocket = origin.sockets.at(-1)!;
    client.destroy();
    assert.ok(await closed(upstreamSocket), 'the upstream connection owed the rest of the body was closed');
    const r = await send(gw.base, '/after-early');
    assert.deepEqual(JSON.parse(r.body), { method: 'GET', url: '/after-early' });
  });
});

describe('issue 24: Host at the gateway (RFC 9112 §3.2)', () => {
  let origin: CountingOrigin;
  let gw: Running;

  before(async () => {
    origin = await startCountingOrigin();
    gw = await startGateway(origin.url);
  });
  after(async () => {
    await gw.close();
    await origin.close();
  });

  const hostLines = (s: Seen): string[] => {
    const out: string[] = [];
    for (let i = 0; i < s.rawHeaders.length; i += 2) if (s.rawHeaders[i]!.toLowerCase() === 'host') out.push(s.rawHeaders[i + 1]!);
    return out;
  };

  const refusals: [string, string][] = [
    ['two Host lines', 'Host: shop.example\r\nHost: evil.example\r\n'],
    ['two equal Host lines', 'Host: shop.example\r\nHost: shop.example\r\n'],
    ['an invalid Host (a b)', 'Host: a b\r\n'],
    ['an invalid Host (path)', 'Host: shop.example/x\r\n'],
    ['an invalid Host (userinfo)', 'Host: u@shop.example\r\n'],
    ['an empty Host', 'Host: \r\n'],
    ['no Host on HTTP/1.1', ''],
  ];
  for (const method of ['GET', 'HEAD', 'POST', 'DELETE']) {
    for (const [what, lines] of refusals) {
      it(`${method} with ${what} → 400 problem from the gateway, nothing forwarded`, async () => {
        const before = origin.seen.length;
        const reply = await rawExchange(gw.base, `${method} /h HTTP/1.1\r\n${lines}Content-Length: 0\r\nConnection: close\r\n\r\n`);
        assert.equal(reply.status, 400, reply.text);
        assert.match(reply.text, /application\/problem\+json/i);
        assert.deepEqual(origin.seen.slice(before), []);
      });
    }
  }

  it('forwards exactly one Host, the client\'s, for valid forms (name, IPv4, IPv6, port)', async () => {
    for (const host of ['shop.example', 'SHOP.example:8080', '127.0.0.1:80', '[::1]:8080', 'xn--caf-dma.example']) {
      for (const method of ['GET', 'POST']) {
        const before = origin.seen.length;
        const reply = await rawExchange(gw.base, `${method} /host-${method}-${host} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
        assert.equal(reply.status, 200, `${host}: ${reply.text}`);
        const seen = origin.seen.slice(before);
        assert.equal(seen.length, 1);
        assert.deepEqual(hostLines(seen[0]!), [host]);
      }
    }
  });

  it('a Connection header listing Host does not remove it', async () => {
    const before = origin.seen.length;
    const reply = await rawExchange(gw.base, 'POST /conn-host HTTP/1.1\r\nHost: shop.example\r\nConnection: close, Host\r\nContent-Length: 2\r\n\r\nok');
    assert.equal(reply.status, 200, reply.text);
    const seen = origin.seen.slice(before);
    assert.equal(seen.length, 1);
    assert.deepEqual(hostLines(seen[0]!), ['shop.example']);
    assert.equal(seen[0]!.body, 'ok');
  });

  it('an HTTP/1.0 request without Host is forwarded with exactly one Host (the origin\'s)', async () => {
    const before = origin.seen.length;
    const reply = await rawExchange(gw.base, 'GET /ten HTTP/1.0\r\n\r\n');
    assert.equal(reply.status, 200, reply.text);
    const seen = origin.seen.slice(before);
    assert.equal(seen.length, 1);
    assert.deepEqual(hostLines(seen[0]!), [new URL(origin.url).host]);
  });
});

describe('issue 24: the smuggling attack against the real service behind its embedded gateway', () => {
  let svc: TestService;
  let gwBase: { host: string; port: number };
  let editor: string;

  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral' });
    gwBase = { host: '127.0.0.1', port: svc.running.gatewayAddress!.port };
    editor = await svc.addUser('ed', 'editor');
  });
  after(() => svc.close());

  const article = (title: string): string => `<article><title>${title}</title><price currency="eur">9.99</price></article>`;

  it('a DELETE whose chunked body holds GET /article/1 does not make the next GET answer with article 1', async () => {
    for (const [slug, title] of <[string, string][]>[['first', 'First tea'], ['oolong', 'Oolong']]) {
      const put = await sendToService(svc.base, 'PUT', `/articles/${slug}`, { headers: { authorization: editor, 'content-type': 'application/xml' }, body: article(title) });
      assert.equal(put.status, 201, put.text);
    }
    const smuggled = 'GET /article/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/xml\r\n' +
      'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 40\r\n\r\n';
    await rawExchange(gwBase, `DELETE /article/999 HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked(smuggled)}`);
    const gw = `http://${gwBase.host}:${gwBase.port}`;
    for (let i = 0; i < 2; i++) {
      const r = await sendToService(gw, 'GET', '/articles/oolong', { headers: { accept: 'application/xml' } });
      assert.equal(r.status, 200, r.text);
      assert.match(r.text, /<title>Oolong<\/title>/, `GET ${i + 1} got its own article (${r.headers['x-cache']})`);
    }
  });

  it("an editor's smuggled PUT with an overlong form body captures nobody's request", async () => {
    // The form's declared length runs past what is sent: unframed, the next request on the pooled
    // connection (with its Authorization) would become the end of the title.
    const form = 'price[amount]=1&price[currency]=eur&title=';
    const loot = `PUT /articles/loot HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${editor}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length + 60}\r\n\r\n${form}`;
    await rawExchange(gwBase, `DELETE /article/998 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${editor}\r\nConnection: close, Content-Length\r\nContent-Length: ${loot.length}\r\n\r\n${loot}`);
    const gw = `http://${gwBase.host}:${gwBase.port}`;
    const victim = await sendToService(gw, 'GET', '/articles/first', { headers: { accept: 'application/xml', authorization: editor } });
    assert.equal(victim.status, 200, victim.text);
    assert.match(victim.text, /<title>First tea<\/title>/);
    const loot2 = await sendToService(svc.base, 'GET', '/articles/loot', { headers: { accept: 'application/xml' } });
    assert.equal(loot2.status, 404, `no article was made from a captured request: ${loot2.text}`);
  });
});
