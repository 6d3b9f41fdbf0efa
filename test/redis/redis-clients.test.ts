/**
 * @module test/redis/redis-clients
 * Both Redis adapters (node-redis, roa's RESP client) against a real Redis: every reply type,
 * scripts by EVALSHA, pipelining, errors, and TLS through a terminator with a throwaway CA.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { describe } from '../helpers/node-test.js';
import { openRedis, parseRedisClientKind } from '../../src/redis/open-redis.js';
import { REDIS_CLIENT_KINDS, redisScript, type RedisClient } from '../../src/redis/redis-client.js';
import { redisReachable, skipReason, suiteNeeding, TEST_REDIS_URL } from '../helpers/services.js';

const redisSkip = skipReason(await redisReachable(), `Redis not reachable at ${TEST_REDIS_URL}`);
const OPTS = { connectTimeoutMs: 10_000, commandTimeoutMs: 60_000 };

describe('openRedis', () => {
  const { it } = suiteNeeding(false);
  it('refuses an unknown client name, a bad URL and a bad database at once', () => {
    assert.throws(() => openRedis(TEST_REDIS_URL, { client: 'ioredis' as never }), /node-redis or resp/);
    assert.throws(() => parseRedisClientKind('ioredis', '--redis-client'), /--redis-client must be node-redis or resp, got 'ioredis'/);
    assert.equal(parseRedisClientKind(undefined, 'x'), 'node-redis');
    assert.equal(parseRedisClientKind('resp', 'x'), 'resp');
    for (const client of REDIS_CLIENT_KINDS) {
      assert.throws(() => openRedis('http://127.0.0.1:6379', { client }), TypeError);
      assert.throws(() => openRedis('redis://127.0.0.1:6379/abc', { client }), TypeError);
    }
  });
});

/** A throwaway CA and a certificate for `localhost` it signed, made with openssl in `dir`. */
function makeCertificates(dir: string): { ca: Buffer; key: Buffer; cert: Buffer } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=roa test CA');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'ext.cnf');
  return { ca: readFileSync(join(dir, 'ca.pem')), key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) };
}

const haveOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
const tlsSkip = redisSkip || skipReason(haveOpenssl, 'openssl not installed');

for (const client of REDIS_CLIENT_KINDS) {
  describe(`RedisClient (${client}) on Redis`, () => {
    const { it, before, after } = suiteNeeding(redisSkip);
    const prefix = `roa-test:${randomBytes(6).toString('hex')}:`;
    let redis!: RedisClient;
    before(() => {
      redis = openRedis(TEST_REDIS_URL, { client, ...OPTS });
    });
    after(async () => {
      const keys = await redis.command(['KEYS', `${prefix}*`]);
      if (Array.isArray(keys) && keys.length > 0) await redis.command(['DEL', ...(keys as string[])]);
      await redis.close();
    });

    it('is the client asked for', () => {
      assert.equal(redis.kind, client);
    });

    it('reads strings, integers, nil and arrays of them (LRANGE, HGETALL)', async () => {
      assert.equal(await redis.command(['PING']), 'PONG');
      assert.equal(await redis.command(['SET', `${prefix}s`, 'zoë']), 'OK');
      assert.equal(await redis.command(['GET', `${prefix}s`]), 'zoë');
      assert.equal(await redis.command(['GET', `${prefix}missing`]), null);
      assert.equal(await redis.command(['RPUSH', `${prefix}list`, 'a', 'b', '']), 3);
      assert.deepEqual(await redis.command(['LRANGE', `${prefix}list`, '0', '-1']), ['a', 'b', '']);
      assert.deepEqual(await redis.command(['LRANGE', `${prefix}missing`, '0', '-1']), []);
      await redis.command(['HSET', `${prefix}h`, 'f', '1', 'g', '2']);
      assert.deepEqual(await redis.command(['HGETALL', `${prefix}h`]), ['f', '1', 'g', '2']);
    });

    it('reads a nil array (BLPOP timing out) and nested arrays with nils and errors inside', async () => {
      assert.equal(await redis.command(['BLPOP', `${prefix}empty`, '0.01']), null);
      const nested = redisScript("return {1, {2, {3, 'x'}, {}}, 'y', false, redis.pcall('incr', KEYS[1])}");
      await redis.command(['SET', `${prefix}text`, 'not a number']);
      const reply = await redis.runScript(nested, [`${prefix}text`], []);
      assert.ok(Array.isArray(reply));
      assert.deepEqual(reply.slice(0, 4), [1, [2, [3, 'x'], []], 'y', null]);
      assert.ok(reply[4] instanceof Error, 'an error inside an array is an element');
      assert.match((reply[4] as Error).message, /not an integer/);
    });

    it('rejects an error reply and stays usable', async () => {
      await assert.rejects(redis.command(['NOSUCHCOMMAND']), /unknown command/i);
      await assert.rejects(redis.command(['INCR', `${prefix}s`]), /not an integer/);
      assert.equal(await redis.command(['PING']), 'PONG');
    });

    it('runs scripts by EVALSHA, loading one again after SCRIPT FLUSH', async () => {
      const script = redisScript(`return {KEYS[1], ARGV[1], ${randomBytes(4).readUInt32BE()}}`);
      const exists = async () => (await redis.command(['SCRIPT', 'EXISTS', script.sha1])) as number[];
      assert.deepEqual(await exists(), [0]);
      assert.deepEqual(((await redis.runScript(script, ['k'], ['v'])) as string[]).slice(0, 2), ['k', 'v']);
      assert.deepEqual(await exists(), [1], 'the first run loaded it');
      await redis.command(['SCRIPT', 'FLUSH']);
      assert.deepEqual(await exists(), [0]);
      assert.deepEqual(((await redis.runScript(script, ['k2'], ['v2'])) as string[]).slice(0, 2), ['k2', 'v2']);
      assert.deepEqual(await exists(), [1]);
      await assert.rejects(redis.runScript(redisScript("return redis.error_reply('ERR mine')"), [], []), /ERR mine/);
    });

    it('pipelines many commands of one turn and matches each reply to its command', async () => {
      const counter = `${prefix}counter`;
      const replies = await Promise.all(Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? redis.command(['INCR', counter]) : redis.setIfAbsent(`${prefix}n${i % 10}`, '1', 60_000))));
      assert.deepEqual(replies.filter((_, i) => i % 2 === 0), Array.from({ length: 1000 }, (_, i) => i + 1));
      assert.equal(replies.filter((r, i) => i % 2 === 1 && r === true).length, 5, 'each of five nonces set once');
      const ttl = Number(await redis.command(['PTTL', `${prefix}n1`]));
      assert.ok(ttl > 0 && ttl <= 60_000, String(ttl));
    });
  });

  describe(`RedisClient (${client}) over TLS`, () => {
    const { it, before, after } = suiteNeeding(tlsSkip);
    let dir = '';
    let certs!: ReturnType<typeof makeCertificates>;
    let terminator!: TlsServer;
    let port = 0;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'roa-redis-tls-'));
      certs = makeCertificates(dir);
      // TLS terminated here and piped to the plain Redis the tests use.
      const { hostname, port: redisPort } = new URL(TEST_REDIS_URL);
      terminator = createTlsServer({ key: certs.key, cert: certs.cert }, (socket) => {
        const upstream = connect(Number(redisPort || 6379), hostname);
        socket.pipe(upstream).pipe(socket);
        const end = () => (socket.destroy(), upstream.destroy());
        socket.on('error', end);
        upstream.on('error', end);
        socket.on('close', end);
        upstream.on('close', end);
      });
      await new Promise<void>((resolve) => terminator.listen(0, '127.0.0.1', resolve));
      port = (terminator.address() as AddressInfo).port;
    });
    after(() => {
      terminator.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('speaks to rediss://localhost verifying the certificate with the CA given', async () => {
      const redis = openRedis(`rediss://localhost:${port}`, { client, ...OPTS, tls: { ca: certs.ca } });
      try {
        assert.equal(await redis.command(['PING']), 'PONG');
        const key = `roa-test:${randomBytes(6).toString('hex')}:tls`;
        assert.equal(await redis.setIfAbsent(key, '1', 10_000), true);
        assert.equal(await redis.setIfAbsent(key, '1', 10_000), false);
        assert.deepEqual(await redis.runScript(redisScript('return {1, {ARGV[1]}}'), [], ['é']), [1, ['é']]);
        await redis.command(['DEL', key]);
      } finally {
        await redis.close();
      }
    });

    it('refuses a server whose certificate it cannot verify', async () => {
      const redis = openRedis(`rediss://localhost:${port}`, { client, ...OPTS });
      try {
        await assert.rejects(redis.command(['PING']), /self[- ]signed|unable to verify|certificate/i);
      } finally {
        await redis.close();
      }
    });

    it('refuses a certificate for another host name', async () => {
      const redis = openRedis(`rediss://127.0.0.1:${port}`, { client, ...OPTS, tls: { ca: certs.ca, servername: 'elsewhere.example' } });
      try {
        await assert.rejects(redis.command(['PING']), /altnames|does not match|Hostname/i);
      } finally {
        await redis.close();
      }
    });
  });
}
