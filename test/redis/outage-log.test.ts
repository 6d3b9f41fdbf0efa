import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { openRedis } from '../../src/redis/open-redis.js';
import type { RedisLogger } from '../../src/redis/outage-log.js';
import type { RedisClientKind } from '../../src/redis/redis-client.js';
import { freePort } from '../helpers/ports.js';

function recorder(): RedisLogger & { lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> } {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  return {
    lines,
    warn: (obj, msg) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    info: (obj, msg) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  };
}

for (const client of ['node-redis', 'resp'] as RedisClientKind[]) {
  describe(`an unreachable Redis (${client})`, () => {
    it('is logged at warn with the reason once per outage, without the password', async () => {
      const port = await freePort();
      const logger = recorder();
      const redis = openRedis(`redis://roa:s3cret-pw@127.0.0.1:${port}`, { client, logger, connectTimeoutMs: 2000, commandTimeoutMs: 2000 });
      try {
        for (let i = 0; i < 3; i++) {
          await assert.rejects(redis.setIfAbsent(`k${i}`, '1', 1000));
          // Past the back-off, so that later commands try (and fail) to connect again.
          await new Promise((r) => setTimeout(r, i === 0 ? 150 : 300));
        }
        const warns = logger.lines.filter((l) => l.level === 'warn');
        assert.equal(warns.length, 1, JSON.stringify(logger.lines));
        assert.equal(warns[0]!.msg, 'Redis unreachable');
        assert.equal(warns[0]!.obj.redis, `127.0.0.1:${port}`);
        assert.match(String(warns[0]!.obj.reason), /ECONNREFUSED|closed|connect/i);
        assert.doesNotMatch(JSON.stringify(logger.lines), /s3cret/);
      } finally {
        await redis.close();
      }
    });
  });
}
