/** @module test/redis/resp-client roa's pipelined RESP client: reply parsing, batching, failure and back-off, handshake on real Redis. */
import { describe, it, type TestContext } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { encodeCommand, RedisReplyError, RespClient } from '../../src/redis/resp-client.js';
import { createRedisNonceStore } from '../../src/auth/redis-nonce-store.js';
import { REDIS_CLIENT_KINDS } from '../../src/redis/redis-client.js';
import { NonceStoreUnavailableError } from '../../src/auth/nonce-store.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * Deadlines far beyond what a loaded machine needs, so no test depends on how fast the CPU is; the
 * tests of deadlines and back-off freeze Date.now (the pipeline's only clock) and move it themselves.
 */
const OPTS = { connectTimeoutMs: 10_000, commandTimeoutMs: 60_000 };
/** A short command deadline for the test that lets it run out (on the mocked clock). */
const SHORT_DEADLINE_MS = 300;

/** A loopback server that hands each connection's received bytes to `onData`. */
async function scripted(onData: (socket: Socket, data: string) => void): Promise<{ server: Server; url: URL; writes: string[] }> {
  const writes: string[] = [];
  const server = createServer((socket) => {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      writes.push(d);
      onData(socket, d);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: new URL(`redis://127.0.0.1:${(server.address() as AddressInfo).port}`), writes };
}

const commandsIn = (data: string) => data.split('*').length - 1;

/** Freezes Date.now, the pipeline's clock, for this test; answers a function that moves it on. */
function frozenClock(t: TestContext): (ms: number) => void {
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  return (ms) => t.mock.timers.tick(ms);
}

/** Resolves once `done()` holds, checking once per event-loop turn (no wall-clock deadline: the test's timeout bounds it). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A scripted server's answer to the first commands: `replies` one byte per write, each flushed on its own. */
function dripOnCommand(replies: Buffer): (socket: Socket, data: string) => void {
  return (socket, data) => {
    if (commandsIn(data) === 0) return;
    let i = 0;
    const drip = (): void => {
      if (i >= replies.length) return;
      socket.write(replies.subarray(i, ++i), () => setImmediate(drip));
    };
    drip();
  };
}

/** Runs `test` with a pipeline to a scripted server, closing both afterwards. */
async function withScripted(
  onData: (socket: Socket, data: string) => void,
  test: (redis: RespClient, writes: string[]) => Promise<void>,
  opts = OPTS,
): Promise<void> {
  const { server, url, writes } = await scripted(onData);
  const redis = new RespClient(url, opts);
  try {
    await test(redis, writes);
  } finally {
    await redis.close();
    server.close();
  }
}

describe('RespClient', () => {
  it('encodes commands as arrays of bulk strings, lengths in bytes', () => {
    assert.equal(encodeCommand(['SET', 'k', 'é']), '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n');
  });

  it('parses every reply type, also when replies arrive split at any byte', async () => {
    // The bulk string is 5 bytes in UTF-8 (é takes two) and holds a CRLF of its own.
    const replies = Buffer.from('+OK\r\n$-1\r\n$5\r\nhé\r\n\r\n:42\r\n-ERR wrong\r\n_\r\n$0\r\n\r\n', 'utf8');
    await withScripted(dripOnCommand(replies), async (redis) => {
      const results = await Promise.allSettled(Array.from({ length: 7 }, (_, i) => redis.command(['PING', String(i)])));
      assert.deepEqual(results.slice(0, 4).map((r) => (r as PromiseFulfilledResult<unknown>).value), ['OK', null, 'hé\r\n', 42]);
      assert.equal(results[4]!.status, 'rejected');
      assert.ok((results[4] as PromiseRejectedResult).reason instanceof RedisReplyError);
      assert.match(String((results[4] as PromiseRejectedResult).reason.message), /ERR wrong/);
      assert.deepEqual(results.slice(5).map((r) => (r as PromiseFulfilledResult<unknown>).value), [null, '']);
    });
  });

  it('parses arrays (nested, empty, nil, with nils and errors inside), also when split at any byte', async () => {
    const replies = Buffer.from('*3\r\n$1\r\na\r\n:-2\r\n*2\r\n*0\r\n$-1\r\n*-1\r\n*2\r\n-ERR inner\r\n$3\r\nhé\r\n+OK\r\n', 'utf8');
    await withScripted(dripOnCommand(replies), async (redis) => {
      const [nested, nil, withError, after] = await Promise.all(Array.from({ length: 4 }, () => redis.command(['PING'])));
      assert.deepEqual(nested, ['a', -2, [[], null]]);
      assert.equal(nil, null);
      assert.ok(Array.isArray(withError) && withError[0] instanceof RedisReplyError && /ERR inner/.test(withError[0].message));
      assert.equal(withError[1], 'hé');
      assert.equal(after, 'OK', 'the connection reads on after an array');
    });
  });

  it('reads a bulk string longer than its read buffer, and integers of every sign and size', async () => {
    const big = 'x'.repeat(200_000) + 'é';
    const replies = `$${Buffer.byteLength(big)}\r\n${big}\r\n:-7\r\n:0\r\n:9007199254740991\r\n`;
    await withScripted((socket, data) => {
      if (commandsIn(data) > 0) socket.write(Buffer.from(replies, 'utf8'));
    }, async (redis) => {
      const results = await Promise.all(Array.from({ length: 4 }, () => redis.command(['PING'])));
      assert.equal(results[0], big);
      assert.deepEqual(results.slice(1), [-7, 0, 9007199254740991]);
    });
  });

  it('maps each reply with the caller\'s mapper, and rejects through wrapError', async () => {
    class Wrapped extends Error {}
    const { server, url } = await scripted((socket, data) => {
      if (commandsIn(data) > 0) socket.write('+OK\r\n$-1\r\n-ERR no\r\n:5\r\n');
    });
    const redis = new RespClient(url, { ...OPTS, wrapError: (err) => new Wrapped(err.message, { cause: err }) });
    try {
      const fresh = (reply: unknown) => {
        if (reply === 'OK') return true;
        if (reply === null) return false;
        throw new Error(`unexpected ${String(reply)}`);
      };
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => redis.send(encodeCommand(['SET', 'k', '1']), fresh)));
      assert.deepEqual(results.slice(0, 2).map((r) => (r as PromiseFulfilledResult<boolean>).value), [true, false]);
      const [replyError, mapperError] = results.slice(2).map((r) => (r as PromiseRejectedResult).reason);
      assert.ok(replyError instanceof Wrapped && replyError.cause instanceof RedisReplyError);
      assert.match(replyError.message, /ERR no/);
      assert.ok(mapperError instanceof Wrapped);
      assert.match(mapperError.message, /unexpected 5/);
    } finally {
      await redis.close();
      server.close();
    }
    // After close, and for connection failures, the wrapper applies too.
    await assert.rejects(redis.command(['PING']), Wrapped);
  });

  it('sends the commands of one event-loop turn together, 128 at most per write', async () => {
    await withScripted((socket, data) => socket.write('+OK\r\n'.repeat(commandsIn(data))), async (redis, writes) => {
      assert.deepEqual(await Promise.all(Array.from({ length: 5 }, (_, i) => redis.command(['SET', `k${i}`, '1']))), Array(5).fill('OK'));
      assert.deepEqual(writes.map(commandsIn), [5]);
      writes.length = 0;
      const socket = (redis as unknown as { socket: { write(chunk: string): boolean } }).socket;
      const sent: number[] = [];
      const write = socket.write.bind(socket);
      socket.write = (chunk: string) => (sent.push(commandsIn(chunk)), write(chunk));
      assert.deepEqual(await Promise.all(Array.from({ length: 30 }, (_, i) => redis.command(['SET', `k${i}`, '1']))), Array(30).fill('OK'));
      assert.deepEqual(sent, [30]);
      sent.length = 0;
      assert.deepEqual(await Promise.all(Array.from({ length: 300 }, (_, i) => redis.command(['SET', `k${i}`, '1']))), Array(300).fill('OK'));
      assert.deepEqual(sent, [128, 128, 44]);
    });
  });

  it('holds a small batch while one is unanswered, and sends it with the commands of the turn its reply comes in', async () => {
    // Replies go out only when the test releases them: every command received and not yet answered.
    let unanswered = 0;
    let peer: Socket | undefined;
    /** Answers every command received so far, once `expected` of them are in. */
    const release = async (expected: number) => {
      while (unanswered < expected) await new Promise((resolve) => setTimeout(resolve, 1));
      assert.equal(unanswered, expected);
      peer!.write('+OK\r\n'.repeat(unanswered));
      unanswered = 0;
    };
    await withScripted((socket, data) => ((peer = socket), (unanswered += commandsIn(data))), async (redis) => {
      const sent: number[] = [];
      const turn = () => new Promise((resolve) => setImmediate(resolve));
      const issue = (n: number) => Array.from({ length: n }, (_, i) => redis.command(['SET', `k${i}`, '1']));
      const firstWrite = issue(20);
      const socket = (redis as unknown as { socket: { write(chunk: string): boolean } }).socket;
      const write = socket.write.bind(socket);
      socket.write = (chunk: string) => (sent.push(commandsIn(chunk)), write(chunk));
      await turn();
      // With nothing in flight, the first batch went at the end of its turn, small or not.
      assert.deepEqual(sent, [20]);
      sent.length = 0;
      const held = [...issue(3)];
      await turn();
      held.push(...issue(2));
      await new Promise((resolve) => setTimeout(resolve, 40));
      assert.deepEqual(sent, [], 'two small turns wait while 20 commands are unanswered');
      // A big batch is never held, even with commands in flight.
      const big = issue(16);
      await turn();
      assert.deepEqual(sent, [21], 'the 16 went at once, taking the 5 held ones along');
      sent.length = 0;
      const small = issue(4);
      await turn();
      assert.deepEqual(sent, []);
      await release(41);
      assert.deepEqual(await Promise.all([...firstWrite, ...held, ...big]), Array(41).fill('OK'));
      await turn();
      assert.deepEqual(sent, [4], 'the held 4 left at the end of the turn the reply came in');
      await release(4);
      assert.deepEqual(await Promise.all(small), Array(4).fill('OK'));
      // With nothing unanswered, a single command goes at the end of its own turn.
      const lone = redis.command(['PING']);
      await turn();
      assert.deepEqual(sent, [4, 1]);
      await release(1);
      assert.equal(await lone, 'OK');
    });
  });

  it('fails a held batch with the unanswered one when the reply misses its deadline', async (t) => {
    const advance = frozenClock(t);
    await withScripted(() => {}, async (redis) => {
      const inFlight = Array.from({ length: 20 }, () => redis.command(['PING']));
      await new Promise((resolve) => setImmediate(resolve));
      const held = redis.command(['PING']);
      let settled = 0;
      let settledInFailingTurn: number | undefined;
      const all = [...inFlight, held].map((p) => p.finally(() => {
        if (settled++ === 0) setImmediate(() => (settledInFailingTurn = settled));
      }));
      // Up to the deadline nothing fails, however many sweeps run meanwhile.
      advance(SHORT_DEADLINE_MS);
      await new Promise((resolve) => setTimeout(resolve, SHORT_DEADLINE_MS));
      assert.equal(settled, 0, 'nothing fails before the deadline');
      advance(1);
      const results = await Promise.allSettled(all);
      assert.ok(results.every((r) => r.status === 'rejected' && /did not answer within 300 ms/.test(String(r.reason))), 'all fail with the deadline');
      await until(() => settledInFailingTurn !== undefined);
      assert.equal(settledInFailingTurn, 21, 'the held command fails with the unanswered batch, not at a later deadline of its own');
    }, { ...OPTS, commandTimeoutMs: SHORT_DEADLINE_MS });
  });

  it('fails everything pending on a reply of unknown type', async () => {
    await withScripted((socket) => socket.write('!weird\r\n'), async (redis) => {
      const results = await Promise.allSettled([redis.command(['PING']), redis.command(['PING'])]);
      assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
      assert.match(String((results[0] as PromiseRejectedResult).reason), /unexpected Redis reply type/);
    });
  });

  it('drops the connection on a reply nobody asked for', async (t) => {
    frozenClock(t);
    await withScripted((socket) => socket.write('+OK\r\n+OK\r\n'), async (redis) => {
      assert.equal(await redis.command(['PING']), 'OK');
      await until(() => (redis as unknown as { socket: unknown }).socket === undefined);
      // The connection is gone and backing off (the clock stands still): the next command fails closed at once.
      await assert.rejects(redis.command(['PING']), /nobody asked for/);
    });
  });

  it('rejects at once while backing off after a failure, then reconnects', async (t) => {
    const advance = frozenClock(t);
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const redis = new RespClient(new URL(`redis://127.0.0.1:${port}`), OPTS);
    let server: Server | undefined;
    try {
      await assert.rejects(redis.command(['PING']), /ECONNREFUSED/);
      // Still inside the back-off on the frozen clock: refused without a connection attempt.
      await assert.rejects(redis.command(['PING']), /back-off/);
      server = createServer((socket) => socket.on('data', () => socket.write('+PONG\r\n')));
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      advance(99);
      await assert.rejects(redis.command(['PING']), /back-off/, 'the first back-off lasts 100 ms');
      advance(1);
      assert.equal(await redis.command(['PING']), 'PONG');
    } finally {
      await redis.close();
      server?.close();
    }
  });

  it('waits on close for the replies still due', async () => {
    await withScripted((socket, data) => setTimeout(() => socket.write('+OK\r\n'.repeat(commandsIn(data))), 50), async (redis) => {
      const pending = redis.command(['SET', 'k', '1']);
      await redis.close();
      assert.equal(await pending, 'OK');
      await assert.rejects(redis.command(['PING']), /closed/);
    });
  });

  it('refuses a URL that is not redis:// or names a database that is not a number', () => {
    assert.throws(() => new RespClient(new URL('http://127.0.0.1:6379'), OPTS), TypeError);
    assert.throws(() => createRedisNonceStore('redis://127.0.0.1:6379/abc'), TypeError);
    assert.throws(() => createRedisNonceStore('unix:///tmp/redis.sock?db=abc'), TypeError);
    assert.throws(() => createRedisNonceStore('unix:'), /socket path/);
  });

  it('speaks over a Unix socket, credentials and database from the query', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-resp-'));
    const path = join(dir, 'redis sock');
    const writes: string[] = [];
    const server = createServer((socket) => {
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => {
        writes.push(d);
        socket.write('+OK\r\n'.repeat(commandsIn(d)));
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    for (const scheme of ['unix', 'redis+unix']) {
      writes.length = 0;
      const redis = new RespClient(new URL(`${scheme}://${encodeURI(path)}?db=2&username=roa&password=p%40ss`), OPTS);
      try {
        assert.equal(await redis.command(['SET', 'k', '1']), 'OK');
      } finally {
        await redis.close();
      }
      assert.equal(writes.join(''), encodeCommand(['AUTH', 'roa', 'p@ss']) + encodeCommand(['SELECT', '2']) + encodeCommand(['SET', 'k', '1']), scheme);
    }
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

const haveRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

const redisServerSkip = skipReason(haveRedisServer, 'no redis-server binary on PATH');

for (const client of REDIS_CLIENT_KINDS) describe(`the Redis nonce store (${client}) on a redis-server over a Unix socket`, () => {
  const { it } = suiteNeeding(redisServerSkip);
  it('records nonces: the first use is fresh, the second is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-redis-'));
    const path = join(dir, 'redis.sock');
    const child = spawn('redis-server', ['--port', '0', '--unixsocket', path, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const store = createRedisNonceStore(`unix://${path}`, { ...OPTS, prefix: 'roa-test:', client });
    try {
      // A generous start-up allowance: a busy machine may take seconds to start redis-server.
      const deadline = Date.now() + 60_000;
      let first: boolean | undefined;
      // redis-server creates the socket a moment after it starts; until then consume rejects (fails closed).
      while (first === undefined) {
        first = await store.consume('n1', 60_000).catch((err: unknown) => {
          if (Date.now() > deadline) throw err;
          return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 150));
        });
      }
      assert.equal(first, true);
      assert.equal(await store.consume('n1', 60_000), false);
    } finally {
      await store.close();
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const redisSkip = skipReason(await reachable(), `Redis not reachable at ${REDIS_URL}`);

for (const client of REDIS_CLIENT_KINDS) describe(`the Redis nonce store (${client}): URL database and credentials`, () => {
  const { it, after } = suiteNeeding(redisSkip);
  const prefix = `roa-test:${randomBytes(6).toString('hex')}:`;
  const admin = createClient({ url: REDIS_URL });
  admin.on('error', () => {});
  after(async () => {
    if (!admin.isOpen) return;
    for (const db of [0, 3]) {
      await admin.select(db);
      const keys = await admin.keys(prefix + '*');
      if (keys.length > 0) await admin.del(keys);
    }
    await admin.close();
  });

  it('selects the database named in the URL', async () => {
    const url = new URL(REDIS_URL);
    url.pathname = '/3';
    const store = createRedisNonceStore(url.href, { prefix, client });
    try {
      assert.equal(await store.consume('in-db-3', 60_000), true);
    } finally {
      await store.close();
    }
    await admin.connect();
    await admin.select(3);
    assert.equal(await admin.exists(prefix + 'in-db-3'), 1);
    await admin.select(0);
    assert.equal(await admin.exists(prefix + 'in-db-3'), 0);
  });

  it('fails closed when Redis refuses the AUTH in the URL', async () => {
    const url = new URL(REDIS_URL);
    url.username = 'roa-nobody';
    url.password = 'wrong';
    const store = createRedisNonceStore(url.href, { prefix, ...OPTS, client });
    try {
      await assert.rejects(store.consume('never', 60_000), NonceStoreUnavailableError);
    } finally {
      await store.close();
    }
  });
});

async function reachable(): Promise<boolean> {
  const probe = new RespClient(new URL(REDIS_URL), OPTS);
  try {
    return (await probe.command(['PING'])) === 'PONG';
  } catch {
    return false;
  } finally {
    await probe.close();
  }
}
