/**
 * @module test/regressions/issue-24-throttle-address
 * Issue 24 item 2, behind a proxy: the failed-login throttle counts per user and *client* address, so
 * behind the embedded gateway (`npm start`) guesses from one client do not lock the owner out at
 * another. The gateway appends each client's address to X-Forwarded-For; the service believes that
 * header only from a trusted proxy (proxy-addr), so a client cannot forge its way out of its lock.
 * Clients are told apart by their loopback source address (Linux answers for the whole of 127/8).
 */
import { request as httpRequest } from 'node:http';
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { createApp } from '../../src/app.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { sendFrom, startTestService, type TestService } from '../helpers/service.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { startVarnish, varnishAvailable, type VarnishInstance } from '../helpers/varnish.js';
import { startGateway, startOrigin, type Origin, type Running } from '../gateway/gateway-helpers.js';

const LIMIT = 10;
const basic = (user: string, password: string): string => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

/** Guesses `user`'s password LIMIT times from `from` (each a 401), after which the next is a 429. */
async function lockOut(from: string, base: string, user: string, headers: Record<string, string> = {}): Promise<void> {
  for (let n = 0; n < LIMIT; n++) {
    const r = await sendFrom(from, base, 'GET', '/articles', { ...headers, authorization: basic(user, `guess-${n}`) });
    assert.equal(r.status, 401, r.text);
  }
  const locked = await sendFrom(from, base, 'GET', '/articles', { ...headers, authorization: basic(user, 'guess-x') });
  assert.equal(locked.status, 429, locked.text);
}

describe('issue 24: behind the embedded gateway, guesses lock the guessing client only', () => {
  let svc: TestService;
  const attacker = '127.0.0.2';
  const owner = '127.0.0.1';
  before(async () => {
    // Only the gateway is trusted, not the default `loopback`: the attacker is another client on the host.
    svc = await startTestService({ gatewayPort: 'ephemeral', trustProxy: ['none'] });
    await svc.addUser('nia', 'editor', 'nia-password-1');
    await svc.addUser('oto', 'editor', 'oto-password-1');
    await svc.addUser('qed', 'editor', 'qed-password-1');
  });
  after(() => svc.close());

  it('lets the owner in through the gateway while the attacker behind the same gateway gets 429', async () => {
    await lockOut(attacker, svc.gatewayBase!, 'nia');
    const owners = await sendFrom(owner, svc.gatewayBase!, 'GET', '/articles', { authorization: basic('nia', 'nia-password-1') });
    assert.equal(owners.status, 200, owners.text);
    const atLocked = await sendFrom(attacker, svc.gatewayBase!, 'GET', '/articles', { authorization: basic('nia', 'nia-password-1') });
    assert.equal(atLocked.status, 429, 'the right password at the locked address');
  });

  it('does not let the attacker escape his lock with a forged X-Forwarded-For through the gateway', async () => {
    await lockOut(attacker, svc.gatewayBase!, 'oto');
    for (const forged of ['198.51.100.7', '127.0.0.1', '203.0.113.1, 198.51.100.8']) {
      const r = await sendFrom(attacker, svc.gatewayBase!, 'GET', '/articles', { authorization: basic('oto', 'oto-password-1'), 'x-forwarded-for': forged });
      assert.equal(r.status, 429, `X-Forwarded-For: ${forged}`);
    }
  });

  it('does not believe a client that talks to the service directly and forges X-Forwarded-For', async () => {
    // The service trusts the gateway's own address, not every client on the host.
    await lockOut(attacker, svc.base, 'qed', { 'x-forwarded-for': '198.51.100.9' });
    const r = await sendFrom(attacker, svc.base, 'GET', '/articles', { authorization: basic('qed', 'qed-password-1'), 'x-forwarded-for': '198.51.100.10' });
    assert.equal(r.status, 429, r.text);
  });
});

describe('issue 24: without a trusted proxy X-Forwarded-For is ignored; with one it names the client', () => {
  let plain: TestService;
  let proxied: TestService;
  const proxy = '127.0.0.3';
  before(async () => {
    plain = await startTestService({ trustProxy: ['none'] });
    proxied = await startTestService({ trustProxy: [proxy] });
    for (const s of [plain, proxied]) await s.addUser('pia', 'editor', 'pia-password-1');
  });
  after(async () => {
    await plain.close();
    await proxied.close();
  });

  it('counts a direct client by its own address whatever X-Forwarded-For says (no proxy trusted)', async () => {
    await lockOut('127.0.0.2', plain.base, 'pia', { 'x-forwarded-for': '198.51.100.1' });
    const r = await sendFrom('127.0.0.2', plain.base, 'GET', '/articles', { authorization: basic('pia', 'pia-password-1'), 'x-forwarded-for': '198.51.100.2' });
    assert.equal(r.status, 429, r.text);
  });

  it('counts the client a trusted proxy names (--trust-proxy), and only from that proxy', async () => {
    await lockOut(proxy, proxied.base, 'pia', { 'x-forwarded-for': '198.51.100.1' });
    const other = await sendFrom(proxy, proxied.base, 'GET', '/articles', { authorization: basic('pia', 'pia-password-1'), 'x-forwarded-for': '198.51.100.2' });
    assert.equal(other.status, 200, other.text);
    // An untrusted client claiming to be behind the locked address is itself, not that address.
    const direct = await sendFrom('127.0.0.4', proxied.base, 'GET', '/articles', { authorization: basic('pia', 'pia-password-1'), 'x-forwarded-for': '198.51.100.1' });
    assert.equal(direct.status, 200, direct.text);
    const locked = await sendFrom(proxy, proxied.base, 'GET', '/articles', { authorization: basic('pia', 'pia-password-1'), 'x-forwarded-for': '198.51.100.1' });
    assert.equal(locked.status, 429, locked.text);
  });

  it('refuses a malformed trust list at start-up', async () => {
    await assert.rejects(startTestService({ trustProxy: ['not-an-address'] }), TypeError);
  });
});

describe('issue 24: behind Varnish (deploy/varnish/roa.vcl), which appends X-Forwarded-For itself', () => {
  const { it, before, after } = suiteNeeding(skipReason(varnishAvailable(), 'varnishd with vmod_xkey not installed (run .ci/install-varnish.sh)'));
  let svc: TestService;
  let cache: VarnishInstance;
  before(async () => {
    // Varnish on this host reaches the service from 127.0.0.1: `roa serve --gateway-port 0 --trust-proxy 127.0.0.1`.
    svc = await startTestService({ trustProxy: ['127.0.0.1'] });
    await svc.addUser('ria', 'editor', 'ria-password-1');
    cache = await startVarnish({ backendPort: svc.running.address.port });
  });
  after(async () => {
    await cache?.stop();
    await svc?.close();
  });

  it('locks the guessing client only, forged X-Forwarded-For or not', async () => {
    await lockOut('127.0.0.2', cache.url, 'ria', { 'x-forwarded-for': '198.51.100.1' });
    const forged = await sendFrom('127.0.0.2', cache.url, 'GET', '/articles', { authorization: basic('ria', 'ria-password-1'), 'x-forwarded-for': '198.51.100.2' });
    assert.equal(forged.status, 429, forged.text);
    const owners = await sendFrom('127.0.0.3', cache.url, 'GET', '/articles', { authorization: basic('ria', 'ria-password-1') });
    assert.equal(owners.status, 200, owners.text);
  });
});

// Issue 26: what a client (a peer outside the gateway's `trustProxy`, none by default) sends as
// X-Forwarded-For is dropped; the gateway sends the address it sees.
describe("issue 24: the gateway sends the client's address as X-Forwarded-For", () => {
  let origin: Origin;
  let gw: Running;
  before(async () => {
    origin = await startOrigin((req, res) => {
      res.writeHead(200, { 'cache-control': 'max-age=60', 'content-type': 'text/plain' });
      res.end(`for ${req.url}`);
    });
    gw = await startGateway(origin.url);
  });
  after(async () => {
    await gw.close();
    await origin.close();
  });
  const gatewayUrl = (): string => `http://127.0.0.1:${gw.base.port}`;
  const forwardedFor = (url: string): string | undefined => origin.seen.filter((s) => s.url === url).map((s) => s.headers['x-forwarded-for'] as string | undefined).at(-1);

  it("on a fill, in place of what the client sent, and the stored response is shared whatever the header says", async () => {
    const first = await sendFrom('127.0.0.5', gatewayUrl(), 'GET', '/fill', { 'x-forwarded-for': '198.51.100.1' });
    assert.equal(first.status, 200);
    assert.equal(forwardedFor('/fill'), '127.0.0.5');
    const second = await sendFrom('127.0.0.6', gatewayUrl(), 'GET', '/fill', { 'x-forwarded-for': '203.0.113.2' });
    assert.equal(second.headers['x-cache'], 'HIT');
    assert.equal(origin.seen.filter((s) => s.url === '/fill').length, 1);
  });

  it('on a forwarded request with credentials and on other methods, as one field', async () => {
    await sendFrom('127.0.0.7', gatewayUrl(), 'GET', '/private', { authorization: basic('a', 'b') });
    assert.equal(forwardedFor('/private'), '127.0.0.7');
    const raw = origin.seen.find((s) => s.url === '/private')!.rawHeaders;
    assert.equal(raw.filter((_, i) => i % 2 === 0 && raw[i]!.toLowerCase() === 'x-forwarded-for').length, 1);
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: gw.base.port, method: 'DELETE', path: '/gone', localAddress: '127.0.0.8', agent: false, headers: ['Host', 'gw.example', 'X-Forwarded-For', '192.0.2.1', 'x-forwarded-for', '192.0.2.2'] }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(forwardedFor('/gone'), '127.0.0.8');
  });
});

describe("issue 24: req.ip follows the app's `trust proxy` setting (proxy-addr, as Express 4)", () => {
  const ipOf = async (trust: unknown, from: string, xff: string | undefined): Promise<{ ip: string; ips: string[] }> => {
    const app = createApp();
    if (trust !== undefined) app.set('trust proxy', trust);
    app.get('/', (req: Request, res: Response) => res.json({ ip: req.ip, ips: req.ips }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const r = await sendFrom(from, `http://127.0.0.1:${port}`, 'GET', '/', xff === undefined ? {} : { 'x-forwarded-for': xff });
      return JSON.parse(r.text) as { ip: string; ips: string[] };
    } finally {
      server.closeAllConnections();
      server.close();
    }
  };

  it('is the socket address when nothing is trusted (the default)', async () => {
    assert.deepEqual(await ipOf(undefined, '127.0.0.2', '198.51.100.1'), { ip: '127.0.0.2', ips: [] });
    assert.deepEqual(await ipOf(false, '127.0.0.2', '198.51.100.1'), { ip: '127.0.0.2', ips: [] });
  });

  it('walks X-Forwarded-For from the right through trusted addresses only', async () => {
    assert.deepEqual(await ipOf('127.0.0.2', '127.0.0.2', '198.51.100.1, 203.0.113.5'), { ip: '203.0.113.5', ips: ['203.0.113.5'] });
    assert.deepEqual(await ipOf('127.0.0.2, 203.0.113.0/24', '127.0.0.2', '198.51.100.1, 203.0.113.5'), { ip: '198.51.100.1', ips: ['198.51.100.1', '203.0.113.5'] });
    assert.deepEqual(await ipOf(['loopback'], '127.0.0.9', '198.51.100.1'), { ip: '198.51.100.1', ips: ['198.51.100.1'] });
    assert.deepEqual(await ipOf('127.0.0.2', '127.0.0.3', '198.51.100.1'), { ip: '127.0.0.3', ips: [] });
  });

  it('takes true (trust all: the leftmost entry), a hop count and a function, as Express does', async () => {
    assert.equal((await ipOf(true, '127.0.0.2', '198.51.100.1, 203.0.113.5')).ip, '198.51.100.1');
    assert.equal((await ipOf(1, '127.0.0.2', '198.51.100.1, 203.0.113.5')).ip, '203.0.113.5');
    assert.equal((await ipOf((addr: string) => addr === '127.0.0.2', '127.0.0.2', '198.51.100.1')).ip, '198.51.100.1');
  });

  it('refuses a malformed setting when it is set, not per request', () => {
    assert.throws(() => createApp().set('trust proxy', '10.0.0.0/33'), TypeError);
    assert.throws(() => createApp().set('trust proxy', 'nowhere'), TypeError);
  });
});
