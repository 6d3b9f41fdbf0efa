import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect as h2connect, createSecureServer } from 'node:http2';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { drainable } from '../../src/operations/server-drain.js';
import { describe, it } from '../helpers/node-test.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { makeTestCertificates, opensslAvailable } from '../helpers/tls.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Answers after `?ms` milliseconds (never for `never`). */
function slow(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url!, 'http://x');
  if (url.pathname === '/never') return;
  setTimeout(() => res.end(`done ${url.pathname}`), Number(url.searchParams.get('ms') ?? 0));
}

describe('drainable (HTTP/1 over TCP)', () => {
  it('finishes requests in flight, answers one sent during the drain with Connection: close, closes the connection and cuts nothing', async () => {
    const server = createServer(slow);
    const drainer = drainable(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = netConnect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write('GET /a?ms=400 HTTP/1.1\r\nHost: x\r\n\r\n');
    await wait(150);
    const drained = drainer.drain(10_000);
    socket.write('GET /b HTTP/1.1\r\nHost: x\r\n\r\n');
    const report = await drained;
    await closed;
    assert.deepEqual(report, { cut: 0 });
    const [first, second] = received.split('HTTP/1.1 200 OK').slice(1);
    assert.match(first!, /done \/a$/);
    assert.match(second!, /connection: close/i);
    assert.match(second!, /done \/b$/);
  });

  it('closes an idle keep-alive connection at once and cuts a request that outlives the deadline', async () => {
    const server = createServer(slow);
    const drainer = drainable(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const idle = netConnect(port, '127.0.0.1');
    idle.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => idle.once('data', r));
    const stuck = netConnect(port, '127.0.0.1');
    stuck.on('error', () => {});
    stuck.write('GET /never HTTP/1.1\r\nHost: x\r\n\r\n');
    await wait(100);
    const idleClosed = new Promise((r) => idle.once('close', r));
    const t0 = performance.now();
    const report = await drainer.drain(500);
    await idleClosed;
    assert.deepEqual(report, { cut: 1 });
    assert.ok(performance.now() - t0 >= 400, 'waited for the deadline');
  });
});

const tlsSkip = skipReason(opensslAvailable(), 'openssl not available');
describe('drainable (HTTP/2 secure server, HTTP/1.1 by ALPN)', () => {
  const { it } = suiteNeeding(tlsSkip);
  it('sends GOAWAY to HTTP/2 sessions and lets their streams finish; closes idle HTTP/1.1 connections, busy ones after their response', async () => {
    const certs = makeTestCertificates();
    const server = createSecureServer({ cert: certs.cert, key: certs.key, allowHTTP1: true }, slow as never);
    const drainer = drainable(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const session = h2connect(`https://localhost:${port}`, { ca: certs.ca });
      let goaway = false;
      session.on('goaway', () => (goaway = true));
      session.on('error', () => {});
      const stream = session.request({ ':path': '/h2?ms=500' });
      let h2body = '';
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (h2body += d));
      const h2done = new Promise((r) => stream.once('end', r));

      const tlsOpts = { host: '127.0.0.1', port, servername: 'localhost', ca: certs.ca, ALPNProtocols: ['http/1.1'] };
      const idle = tlsConnect(tlsOpts);
      idle.write('GET /idle HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((r) => idle.once('data', r));
      const busy = tlsConnect(tlsOpts);
      let busyText = '';
      busy.on('data', (d: Buffer) => (busyText += d.toString()));
      busy.write('GET /busy?ms=500 HTTP/1.1\r\nHost: x\r\n\r\n');
      await wait(200);
      const idleClosed = new Promise((r) => idle.once('close', r));
      const busyClosed = new Promise((r) => busy.once('close', r));
      const report = await drainer.drain(10_000);
      await Promise.all([h2done, idleClosed, busyClosed]);
      assert.deepEqual(report, { cut: 0 });
      assert.equal(goaway, true);
      assert.equal(h2body, 'done /h2');
      assert.match(busyText, /done \/busy$/);
      session.destroy();
    } finally {
      server.close();
      certs.remove();
    }
  });
});
