/**
 * @module test/resources/fake-cache-node
 * Loopback node:http servers standing in for cache nodes that take PURGE, and Purgers closed after
 * each test: shared by the purger tests. A test file calls `closeFakes()` in its `afterEach`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Purger } from '../../src/resources/purger.js';

export interface Seen {
  method: string;
  url: string;
  xkey: string | undefined;
  at: number;
}

export interface FakeNode {
  url: string;
  port: number;
  seen: Seen[];
  /** Decides the answer; default 200. 'hang' never answers; a promise answers when it settles. */
  respond: (req: IncomingMessage) => number | 'hang' | Promise<number>;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];

/** Closes every node and purger made since the last call, the latest first. */
export async function closeFakes(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

/** A cache node on `port` (default: any free one) recording every request it gets. */
export async function fakeNode(port = 0): Promise<FakeNode> {
  // Answers not sent yet (hung, or waiting on a promise) are cut when the node closes.
  const unanswered = new Set<ServerResponse>();
  const node: FakeNode = {
    url: '',
    port: 0,
    seen: [],
    respond: () => 200,
    close: async () => {
      for (const res of unanswered) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer((req, res) => {
    node.seen.push({ method: req.method ?? '', url: req.url ?? '', xkey: header(req, 'xkey'), at: Date.now() });
    const answer = node.respond(req);
    unanswered.add(res);
    if (answer === 'hang') return;
    void Promise.resolve(answer).then((status) => {
      unanswered.delete(res);
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  node.port = (server.address() as AddressInfo).port;
  node.url = `http://127.0.0.1:${node.port}`;
  cleanups.push(() => node.close());
  return node;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** A Purger closed by the next `closeFakes()`. */
export function purger(opts: ConstructorParameters<typeof Purger>[0]): Purger {
  const p = new Purger(opts);
  cleanups.push(() => p.close());
  return p;
}
