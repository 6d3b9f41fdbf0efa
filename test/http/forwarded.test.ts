/**
 * @module test/http/forwarded
 * Issue 26 item 2: `req.protocol`, `req.secure`, `req.host`, `req.hostname` and `publicOrigin(req)`
 * believe X-Forwarded-Proto / X-Forwarded-Host and RFC 7239 `Forwarded` only from a proxy the app
 * trusts (`trust proxy`, proxy-addr semantics); garbage never crashes and never grants; a real TLS
 * socket is https whatever the headers say.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { createApp, type App } from '../../src/app.js';
import { publicOrigin } from '../../src/http/public-origin.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { json, request, withServer } from '../helpers/server.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';

interface Seen {
  protocol: string;
  secure: boolean;
  host: string | null;
  hostname: string | null;
  origin: string;
}

/** An app answering every GET with what the request says of its origin, trusting `trust`. */
function originApp(trust?: unknown): App {
  const app = createApp({ env: 'test' });
  if (trust !== undefined) app.set('trust proxy', trust);
  app.get('*', (req: Request, res: Response) => {
    res.json({ protocol: req.protocol, secure: req.secure, host: req.host ?? null, hostname: req.hostname ?? null, origin: publicOrigin(req) });
  });
  return app;
}

async function seen(base: string, headers: Record<string, string>): Promise<Seen> {
  const res = await request(base, 'GET', '/', { headers });
  assert.equal(res.status, 200, res.text);
  return json(res) as Seen;
}

const PLAIN = { protocol: 'http', secure: false, host: 'svc.example:3000', hostname: 'svc.example', origin: 'http://svc.example:3000' };

describe('req.protocol / secure / host / hostname behind a trusted proxy (loopback)', () => {
  const app = originApp('loopback');

  it('believes X-Forwarded-Proto and X-Forwarded-Host (first values, as Express)', async () => {
    await withServer(app, async (base) => {
      const s = await seen(base, { Host: 'svc.example:3000', 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'Articles.Example:8443, inner.example' });
      assert.deepEqual(s, { protocol: 'https', secure: true, host: 'Articles.Example:8443', hostname: 'Articles.Example', origin: 'https://articles.example:8443' });
      assert.equal((await seen(base, { Host: 'svc.example:3000', 'X-Forwarded-Proto': 'HTTPS' })).protocol, 'https', 'schemes are case-insensitive');
    });
  });

  it('believes Forwarded proto= and host= when X-Forwarded-* are absent', async () => {
    await withServer(app, async (base) => {
      const s = await seen(base, { Host: 'svc.example:3000', Forwarded: 'for=198.51.100.7;proto=https;host=articles.example' });
      assert.deepEqual(s, { protocol: 'https', secure: true, host: 'articles.example', hostname: 'articles.example', origin: 'https://articles.example' });
    });
  });

  it('prefers X-Forwarded-Proto / -Host over Forwarded, as Express reads only those', async () => {
    await withServer(app, async (base) => {
      const s = await seen(base, { Host: 'svc.example:3000', 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'x.example', Forwarded: 'proto=https;host=f.example' });
      assert.equal(s.protocol, 'http');
      assert.equal(s.host, 'x.example');
    });
  });

  it('walks Forwarded from the right while the hop that added each element is trusted', async () => {
    await withServer(app, async (base) => {
      // Client → outer proxy (127.0.0.9, trusted) → this server's peer: the outer proxy's element is believed.
      const chain = 'for=198.51.100.7;proto=https;host=outer.example, for=127.0.0.9;proto=http;host=inner.example';
      const s = await seen(base, { Host: 'svc.example:3000', Forwarded: chain });
      assert.equal(s.protocol, 'https');
      assert.equal(s.host, 'outer.example');
      // The outer hop (203.0.113.5) is not trusted: what it says is the client's to forge; the peer's own element stands.
      const forged = 'for=198.51.100.7;proto=https;host=evil.example, for=203.0.113.5;proto=http;host=inner.example';
      const t = await seen(base, { Host: 'svc.example:3000', Forwarded: forged });
      assert.equal(t.protocol, 'http');
      assert.equal(t.host, 'inner.example');
      // Quoted IPv6 node with a port, then an element without proto: the nearest value that is said wins.
      const v6 = 'proto=https;host="[2001:db8::1]:8443", for="[::1]:4711"';
      const u = await seen(base, { Host: 'svc.example:3000', Forwarded: v6 });
      assert.equal(u.protocol, 'https');
      assert.equal(u.host, '[2001:db8::1]:8443');
      assert.equal(u.hostname, '[2001:db8::1]');
      assert.equal(u.origin, 'https://[2001:db8::1]:8443');
      // `unknown` and obfuscated nodes are never trusted hops.
      const hidden = await seen(base, { Host: 'svc.example:3000', Forwarded: 'proto=https;host=far.example, for=_hidden;host=near.example' });
      assert.deepEqual([hidden.protocol, hidden.host], ['http', 'near.example']);
    });
  });

  it('counts hops as proxy-addr does with a hop-count trust', async () => {
    await withServer(originApp(1), async (base) => {
      const s = await seen(base, { Host: 'svc.example:3000', Forwarded: 'proto=https;host=outer.example, for=127.0.0.9;host=inner.example' });
      assert.deepEqual([s.protocol, s.host], ['http', 'inner.example'], 'one hop: only the last element');
    });
    await withServer(originApp(2), async (base) => {
      const s = await seen(base, { Host: 'svc.example:3000', Forwarded: 'proto=https;host=outer.example, for=127.0.0.9;host=inner.example' });
      assert.deepEqual([s.protocol, s.host], ['https', 'outer.example'], 'two hops: both elements');
    });
  });

  it('drops the default port from the public origin, and keeps others', async () => {
    await withServer(app, async (base) => {
      assert.equal((await seen(base, { Host: 'svc.example:3000', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'a.example:443' })).origin, 'https://a.example');
      assert.equal((await seen(base, { Host: 'svc.example:80' })).origin, 'http://svc.example');
      assert.equal((await seen(base, { Host: 'svc.example:443' })).origin, 'http://svc.example:443');
    });
  });
});

describe('req.protocol / secure / hostname from an untrusted peer', () => {
  const forgeries: Array<Record<string, string>> = [
    { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example' },
    { Forwarded: 'proto=https;host=evil.example' },
    { Forwarded: 'for=127.0.0.1;proto=https;host=evil.example, for=127.0.0.1;proto=https' },
  ];
  for (const [name, trust] of [['another address (10.0.0.1)', '10.0.0.1'], ['nothing trusted', undefined], ['trust proxy false', false]] as const) {
    it(`ignores forged headers from loopback when trusting ${name}`, async () => {
      await withServer(originApp(trust), async (base) => {
        for (const headers of forgeries) assert.deepEqual(await seen(base, { Host: 'svc.example:3000', ...headers }), PLAIN, JSON.stringify(headers));
      });
    });
  }
});

describe('garbage forwarded values', () => {
  const huge = 'x'.repeat(8000);
  const cases: Array<[string, Record<string, string>]> = [
    ['Forwarded: ;;;=,"', { Forwarded: ';;;=,"' }],
    ['Forwarded with an empty parameter', { Forwarded: 'for=127.0.0.1;;proto=https' }],
    ['Forwarded with a trailing comma', { Forwarded: 'proto=https,' }],
    ['Forwarded proto that is not a scheme', { Forwarded: 'proto="javascript:alert(1)";host="a b"' }],
    ['Forwarded with a huge value', { Forwarded: `proto=${huge};host=${huge}` }],
    ['Forwarded with 500 elements', { Forwarded: Array.from({ length: 500 }, () => 'for=127.0.0.1;proto=ftp:').join(', ') }],
    ['X-Forwarded-Proto: javascript:alert(1)', { 'X-Forwarded-Proto': 'javascript:alert(1)' }],
    ['X-Forwarded-Proto empty list item', { 'X-Forwarded-Proto': ' , https' }],
    ['X-Forwarded-Proto huge', { 'X-Forwarded-Proto': 'h'.repeat(8000) }],
    ['X-Forwarded-Proto with a digit first', { 'X-Forwarded-Proto': '1https' }],
    ['X-Forwarded-Host: a b', { 'X-Forwarded-Host': 'a b' }],
    ['X-Forwarded-Host with a path', { 'X-Forwarded-Host': 'evil.example/path' }],
    ['X-Forwarded-Host with userinfo', { 'X-Forwarded-Host': 'user@evil.example' }],
    ['X-Forwarded-Host: [::1 (unclosed)', { 'X-Forwarded-Host': '[::1:8080' }],
    ['X-Forwarded-Host: [not-ipv6]:1', { 'X-Forwarded-Host': '[zz::zz]:1' }],
    ['X-Forwarded-Host huge', { 'X-Forwarded-Host': huge + '/' }],
  ];
  for (const trust of ['loopback', undefined]) {
    it(`never crashes and never grants (trust ${trust ?? 'none'})`, async () => {
      await withServer(originApp(trust), async (base) => {
        for (const [name, headers] of cases) {
          const s = await seen(base, { Host: 'svc.example:3000', ...headers });
          assert.deepEqual(s, PLAIN, name);
        }
      });
    });
  }

  it('keeps IPv6 hosts and ports apart', async () => {
    await withServer(originApp('loopback'), async (base) => {
      const s = await seen(base, { Host: '[::1]:3000', 'X-Forwarded-Host': '[2001:db8::7]:8443' });
      assert.deepEqual([s.host, s.hostname, s.origin], ['[2001:db8::7]:8443', '[2001:db8::7]', 'http://[2001:db8::7]:8443']);
      const t = await seen(base, { Host: '[::1]:3000' });
      assert.deepEqual([t.host, t.hostname, t.origin], ['[::1]:3000', '[::1]', 'http://[::1]:3000']);
    });
  });
});

/** One HTTP/1.0 request without Host over a raw socket; the body of the answer. */
function http10WithoutHost(base: string, headers: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve(text.slice(text.indexOf('\r\n\r\n') + 4));
    });
    socket.end(`GET / HTTP/1.0\r\n${headers}\r\n`);
  });
}

describe('publicOrigin without a Host', () => {
  it('names the address the connection arrived at', async () => {
    await withServer(originApp('loopback'), async (base) => {
      const port = new URL(base).port;
      const s = JSON.parse(await http10WithoutHost(base, '')) as Seen;
      assert.deepEqual([s.host, s.hostname, s.origin], [null, null, `http://127.0.0.1:${port}`]);
      const t = JSON.parse(await http10WithoutHost(base, 'X-Forwarded-Proto: https\r\n')) as Seen;
      assert.equal(t.origin, `https://127.0.0.1:${port}`);
    });
  });
});

describe('req.secure over real TLS', () => {
  let certs: TestCertificates;
  before(() => {
    certs = makeTestCertificates();
  });
  after(() => certs.remove());

  async function overTls(app: App, headers: Record<string, string>): Promise<Seen> {
    const server = https.createServer({ cert: certs.cert, key: certs.key }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      return await new Promise<Seen>((resolve, reject) => {
        const req = https.request({ host: '127.0.0.1', servername: 'localhost', port, path: '/', ca: certs.ca, headers: { host: `localhost:${port}`, ...headers }, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString()) as Seen));
        });
        req.on('error', reject);
        req.end();
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('is https over HTTP/2, with the host from :authority', async () => {
    const server = originApp('loopback').createSecureServer({ cert: certs.cert, key: certs.key });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Connected to 127.0.0.1 explicitly (localhost may resolve to ::1 first), verified as localhost.
    const session = http2.connect(`https://localhost:${port}`, {
      createConnection: () => tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: certs.ca, ALPNProtocols: ['h2'] }),
    });
    try {
      const s = await new Promise<Seen>((resolve, reject) => {
        const stream = session.request({ ':path': '/', 'x-forwarded-proto': 'http' });
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString()) as Seen));
        stream.on('error', reject);
        stream.end();
      });
      assert.deepEqual(s, { protocol: 'https', secure: true, host: `localhost:${port}`, hostname: 'localhost', origin: `https://localhost:${port}` });
    } finally {
      session.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('is https on a TLS socket, and a trusted proxy cannot say otherwise', async () => {
    const direct = await overTls(originApp(), {});
    assert.equal(direct.protocol, 'https');
    assert.equal(direct.secure, true);
    assert.match(direct.origin, /^https:\/\/localhost:\d+$/);
    const claimed = await overTls(originApp('loopback'), { 'X-Forwarded-Proto': 'http' });
    assert.equal(claimed.secure, true);
  });
});
