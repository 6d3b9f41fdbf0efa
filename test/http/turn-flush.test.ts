/**
 * @module test/http/turn-flush
 * Responses ended in one event-loop turn are written at its end: the uncork that would write is
 * deferred to setImmediate, nested corks unwind as usual, and responses keep their semantics.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import net, { type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { createApp } from '../../src/app.js';
import { flushPerTurn } from '../../src/http/turn-flush.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';

/** A connected socket pair on loopback; `received()` resolves with what the client read so far after a short wait. */
async function socketPair(): Promise<{ server: Socket; client: Socket; got: () => string; close: () => void }> {
  let serverSide!: Socket;
  const srv = net.createServer((s) => (serverSide = s));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const client = net.connect((srv.address() as AddressInfo).port, '127.0.0.1');
  let text = '';
  client.setEncoding('utf8');
  client.on('data', (d: string) => (text += d));
  await new Promise<void>((r) => client.once('connect', r));
  while (serverSide === undefined) await new Promise((r) => setImmediate(r));
  return { server: serverSide, client, got: () => text, close: () => (client.destroy(), serverSide.destroy(), srv.close()) };
}

describe('flushPerTurn', () => {
  it('writes what the last uncork releases at the end of the turn, not at the uncork', async () => {
    const p = await socketPair();
    try {
      flushPerTurn(p.server);
      p.server.cork();
      p.server.write('a');
      p.server.uncork();
      // Still buffered in the stream: nothing handed to the kernel yet.
      assert.equal(p.server.writableLength, 1);
      assert.equal(p.server.writableCorked, 1);
      await new Promise((r) => setImmediate(r));
      assert.equal(p.server.writableCorked, 0);
      assert.equal(p.server.writableLength, 0);
      while (p.got() !== 'a') await new Promise((r) => setTimeout(r, 5));
    } finally {
      p.close();
    }
  });

  it('unwinds nested corks at once and keeps the order of writes across turns', async () => {
    const p = await socketPair();
    try {
      flushPerTurn(p.server);
      p.server.cork();
      p.server.cork();
      p.server.write('1');
      p.server.uncork();
      assert.equal(p.server.writableCorked, 1, 'the inner uncork is not deferred');
      p.server.uncork();
      p.server.uncork(); // a second release in the same turn is a no-op, as with node's own uncork
      p.server.cork();
      p.server.write('2');
      p.server.uncork();
      await new Promise((r) => setImmediate(r));
      p.server.write('3');
      while (p.got() !== '123') await new Promise((r) => setTimeout(r, 5));
    } finally {
      p.close();
    }
  });

  it('leaves sockets of a server created with flushPerTurn: false alone', async () => {
    for (const flag of [undefined, false] as const) {
      // The default is what `fastPaths` says (ROA_FAST_PATHS may turn it off): on, here.
      const app = createApp({ flushPerTurn: flag, fastPaths: true });
      let uncork: unknown;
      app.get('/', (req: Request, res: Response) => {
        uncork = req.socket.uncork;
        res.send('ok');
      });
      const server = app.createServer();
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        assert.equal(await res.text(), 'ok');
        assert.equal(uncork === Writable.prototype.uncork, flag === false, String(flag));
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    }
  });

  it('keeps response semantics: ended at once, finish after the write, pipelined answers in order', async () => {
    const app = createApp();
    const seen: string[] = [];
    app.get('/:n', (req: Request, res: Response) => {
      res.on('finish', () => seen.push(`finish ${req.params.n}`));
      res.send(`answer ${req.params.n}`);
      seen.push(`ended ${req.params.n} ${res.writableEnded} ${res.headersSent}`);
    });
    const server = app.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      // Three pipelined requests in one segment: handled in one turn, answered in order.
      socket.write('GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await new Promise((r) => socket.once('close', r));
      const bodies = text.split('\r\n\r\n').slice(1).map((b) => b.split('HTTP/1.1')[0]);
      assert.deepEqual(bodies, ['answer 1', 'answer 2', 'answer 3']);
      assert.deepEqual(seen.filter((s) => s.startsWith('ended')), ['ended 1 true true', 'ended 2 true true', 'ended 3 true true']);
      assert.deepEqual(seen.filter((s) => s.startsWith('finish')), ['finish 1', 'finish 2', 'finish 3']);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('writes a response ended by check-phase work after the turn\'s flush at the next tick, not a turn later', async () => {
    const app = createApp();
    let corkedAfterTick = -1;
    app.get('/', (req: Request, res: Response) => {
      // Like a group commit: work the request schedules for the end of the turn settles it.
      setImmediate(() => {
        res.send('late');
        process.nextTick(() => (corkedAfterTick = req.socket.writableCorked));
      });
    });
    const server = app.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      assert.equal(await res.text(), 'late');
      assert.equal(corkedAfterTick, 0, 'uncorked by the tick after the response ended');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
