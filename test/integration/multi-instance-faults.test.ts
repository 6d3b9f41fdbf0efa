/**
 * @module test/integration/multi-instance-faults
 * Issue 27 item 10: two `roa serve` processes on one PostgreSQL database and one Redis, each purging
 * two varnishd nodes (shipped VCL, embedded gateways off), under a bounded mixed load while instance
 * A is killed with SIGKILL and restarted on its port, and Redis is killed and restarted.
 *
 * Topology: varnish 1 → instance A, varnish 2 → instance B (the shipped VCL has one backend). Reads
 * go through both Varnish nodes; Basic and HMAC writes go to the instances directly, alternating.
 * While A is down, varnish 1's misses and the writes sent to A fail: counted, not asserted (nothing
 * can answer for a dead backend); everything else must succeed in every window.
 *
 * Asserted: no acknowledged write lost; no read through either node older than a write already
 * acknowledged when the read began; a nonce used on one instance is refused on the other; while
 * Redis is down signed requests get 503 (fail closed) and nothing else fails; after Redis is back,
 * signed requests succeed again. The counts per window are printed as a table.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { describe } from '../helpers/node-test.js';
import { signRequest } from '../../src/client/index.js';
import { CLI, roa, roaRunning, stop } from '../helpers/roa-cli.js';
import { freePort } from '../helpers/ports.js';
import { redisServerAvailable, startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL as PG_URL } from '../helpers/services.js';
import { startVarnish, varnishAvailable, type VarnishInstance } from '../helpers/varnish.js';


const missing = [
  varnishAvailable() ? undefined : 'varnishd with vmod_xkey (run .ci/install-varnish.sh)',
  redisServerAvailable() ? undefined : 'redis-server',
  (await pgReachable()) ? undefined : `PostgreSQL at ${PG_URL}`,
].filter((m) => m !== undefined);
const skip = skipReason(missing.length === 0, `not available: ${missing.join(', ')}`);

/** Phases of the run, in order; each request belongs to the phase it started in. */
const WINDOWS = ['steady', 'A killed', 'A back', 'Redis down', 'Redis back'] as const;
type Window = (typeof WINDOWS)[number];
/** How long each timed phase lasts (ms); "A killed" also lasts until A answers again. */
const PHASE_MS = { steady: 3000, killed: 3000, back: 3000, redisDown: 4000, redisBack: 6000 };
/** Upper bound on requests per client, so the load is bounded in count as well as in time. */
const MAX_OPS_PER_CLIENT = 4000;

type Kind = 'read' | 'write' | 'post' | 'signed-read' | 'signed-write';
interface Outcome {
  kind: Kind;
  /** 'A' | 'B' for requests to an instance, 'V1' | 'V2' for reads through Varnish. */
  target: 'A' | 'B' | 'V1' | 'V2';
  window: Window;
  start: number;
  end: number;
  /** HTTP status, or 0 when the connection failed. */
  status: number;
  error?: string;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request on its own connection (no keep-alive: a killed process must not leave sockets to reuse). */
function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    // Wide: a request that times out while its server still runs would make "acknowledged" ambiguous.
    req.setTimeout(60_000, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const article = (title: string) => `<article><title>${title}</title><price currency="eur">1.00</price></article>`;
/** Titles carry the version: `<slug> v<n>`. */
const versionOf = (title: string): number => Number(/ v(\d+)$/.exec(title)?.[1] ?? NaN);

interface Instance {
  name: 'A' | 'B';
  port: number;
  base: string;
  child: ChildProcess | undefined;
  output: () => string;
}

describe('two roa serve instances on PostgreSQL and Redis behind two varnishd nodes, under faults', () => {
  const { it, before, after } = suiteNeeding(skip);
  const dbName = `roa_faults_${process.pid}_${randomBytes(3).toString('hex')}`;
  const dbUrl = PG_URL.replace(/\/[^/?]*(\?|$)/, `/${dbName}$1`);
  const env = { ROA_SECRET_KEY: randomBytes(32).toString('hex'), ROA_REDIS_CLIENT: '' };
  const hmacSecret = `faults-hmac-${randomBytes(12).toString('hex')}`;
  const basic = 'Basic ' + Buffer.from('ed:ed-password-1').toString('base64');
  const hanaBasic = 'Basic ' + Buffer.from('hana:hana-password-1').toString('base64');
  let redis: PrivateRedis | undefined;
  let v1: VarnishInstance | undefined;
  let v2: VarnishInstance | undefined;
  const inst: Record<'A' | 'B', Instance> = {
    A: { name: 'A', port: 0, base: '', child: undefined, output: () => '' },
    B: { name: 'B', port: 0, base: '', child: undefined, output: () => '' },
  };
  let created = false;

  async function startInstance(i: Instance): Promise<void> {
    const args = ['serve', '--port', String(i.port), '--gateway-port', '0', '--db', dbUrl, '--redis', redis!.url,
      '--purge', `${v1!.url},${v2!.url}`, '--log-level', 'warn', '--env', 'development'];
    const { child, output } = await roaRunning(args, /service on http:\/\/127\.0\.0\.1:(\d+)/, env, 60_000);
    i.child = child;
    i.output = output;
  }

  before(async () => {
    assert.ok(existsSync(CLI), `${CLI} missing: run npm run build first`);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${dbName}`);
      created = true;
    } finally {
      await admin.end();
    }
    redis = await startPrivateRedis();
    inst.A.port = await freePort();
    inst.B.port = await freePort();
    for (const i of [inst.A, inst.B]) i.base = `http://127.0.0.1:${i.port}`;
    [v1, v2] = await Promise.all([startVarnish({ backendPort: inst.A.port }), startVarnish({ backendPort: inst.B.port })]);
    // Users (and the schema: `roa user add` migrates) before the instances start.
    for (const add of [
      ['user', 'add', 'ed', '--role', 'editor', '--password', 'ed-password-1', '--db', dbUrl],
      ['user', 'add', 'hana', '--role', 'editor', '--password', 'hana-password-1', '--hmac-secret', hmacSecret, '--db', dbUrl],
    ]) {
      const r = roa(add, env);
      assert.equal(r.status, 0, r.stderr);
    }
    await Promise.all([startInstance(inst.A), startInstance(inst.B)]);
  });

  after(async () => {
    // stop() waits for an exit, which a child already killed has had.
    for (const i of [inst.A, inst.B]) if (i.child && i.child.exitCode === null && i.child.signalCode === null) await stop(i.child);
    await Promise.all([v1?.stop(), v2?.stop()]);
    await redis?.stop();
    if (created) {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    }
  });

  const signed = (method: string, path: string, body?: string): Record<string, string> => ({
    ...(signRequest({ method, target: path, user: 'hana', secret: hmacSecret, ...(body !== undefined ? { body } : {}) }) as unknown as Record<string, string>),
  });

  /** A nonce spent on one instance is refused on the other (the nonce store is the shared Redis). */
  async function assertNonceShared(from: Instance, to: Instance): Promise<void> {
    const headers = signed('GET', '/articles?limit=1');
    const first = await call(from.base, 'GET', '/articles?limit=1', headers);
    assert.equal(first.status, 200, `signed request on ${from.name}: ${first.text}`);
    const replay = await call(to.base, 'GET', '/articles?limit=1', headers);
    assert.equal(replay.status, 401, `the same nonce on ${to.name}: ${replay.text}`);
  }

  /** Polls until a fresh signed request to `i` answers 200 (Redis reconnected), within `ms`. */
  async function signedRecovers(i: Instance, ms: number): Promise<boolean> {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(200)) {
      const r = await call(i.base, 'GET', '/articles?limit=1', signed('GET', '/articles?limit=1')).catch(() => undefined);
      if (r?.status === 200) return true;
    }
    return false;
  }

  it('loses no acknowledged write, serves no stale read, shares nonces, and fails only signed requests (503) while Redis is down', { timeout: 170_000 }, async () => {
    const A = inst.A;
    const B = inst.B;
    await assertNonceShared(A, B);
    await assertNonceShared(B, A);

    // Articles written by one writer each, so version order is commit order.
    const WRITERS = 3;
    const PER_WRITER = 3;
    const slugs = Array.from({ length: WRITERS * PER_WRITER }, (_, i) => `f-${i}`);
    const signedSlug = 'f-signed';
    /** The highest version of each article whose write had been acknowledged (2xx arrived). */
    const acked = new Map<string, number>();
    const ids = new Map<string, number>();
    // Editors replace only their own articles: hana (HMAC) owns the one she signs writes to.
    for (const slug of [...slugs, signedSlug]) {
      const owner = slug === signedSlug ? hanaBasic : basic;
      const r = await call(A.base, 'PUT', `/articles/${slug}`, { authorization: owner, 'content-type': 'application/xml', accept: 'application/json' }, article(`${slug} v0`));
      assert.equal(r.status, 201, r.text);
      acked.set(slug, 0);
    }
    const list = await call(B.base, 'GET', '/articles?limit=100', { accept: 'application/json' });
    for (const a of (JSON.parse(list.text) as { articles: { id: number; title: string }[] }).articles) ids.set(a.title.replace(/ v0$/, ''), a.id);
    assert.equal(ids.size, slugs.length + 1, list.text);
    /** Articles created with POST and acknowledged: Location → title. */
    const posted = new Map<string, string>();

    const outcomes: Outcome[] = [];
    const stale: string[] = [];
    let window: Window = 'steady';
    let running = true;
    const windowStart = new Map<Window, number>([['steady', Date.now()]]);
    const enter = (w: Window): void => {
      window = w;
      windowStart.set(w, Date.now());
    };

    /** Runs one request and records its outcome; resolves with the reply, or undefined on a connection failure. */
    async function record(kind: Kind, target: Outcome['target'], base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply | undefined> {
      const o: Outcome = { kind, target, window, start: Date.now(), end: 0, status: 0 };
      outcomes.push(o);
      try {
        const r = await call(base, method, path, headers, body);
        o.status = r.status;
        return r;
      } catch (err) {
        o.error = (err as Error).message;
        return undefined;
      } finally {
        o.end = Date.now();
      }
    }
    /** A client whose target may be down backs off a little instead of spinning on refused connections. */
    const pause = (r: Reply | undefined) => (r === undefined || r.status >= 500 ? sleep(50) : undefined);

    async function writer(w: number): Promise<void> {
      const mine = slugs.slice(w * PER_WRITER, (w + 1) * PER_WRITER);
      const next = new Map(mine.map((s) => [s, 1]));
      for (let op = 0; running && op < MAX_OPS_PER_CLIENT; op++) {
        const to = op % 2 === 0 ? A : B;
        if (op % 7 === 6) {
          const title = `post-${w}-${op}`;
          const r = await record('post', to.name, to.base, 'POST', '/articles', { authorization: basic, 'content-type': 'application/xml', accept: 'application/json' }, article(title));
          if (r !== undefined && r.status === 201) posted.set(String(r.headers.location), title);
          await pause(r);
          continue;
        }
        const slug = mine[op % mine.length]!;
        // A failed write may still have committed, so every attempt takes a new version.
        const v = next.get(slug)!;
        next.set(slug, v + 1);
        const r = await record('write', to.name, to.base, 'PUT', `/articles/${slug}`, { authorization: basic, 'content-type': 'application/xml' }, article(`${slug} v${v}`));
        if (r !== undefined && r.status >= 200 && r.status < 300) acked.set(slug, v);
        await pause(r);
      }
    }

    async function reader(n: number): Promise<void> {
      const all = [...slugs, signedSlug];
      for (let op = 0; running && op < MAX_OPS_PER_CLIENT; op++) {
        const slug = all[(op * 7 + n) % all.length]!;
        const [name, node] = (op + n) % 2 === 0 ? (['V1', v1!] as const) : (['V2', v2!] as const);
        const path = op % 3 === 0 ? `/article/${ids.get(slug)!}` : `/articles/${slug}`;
        const floor = acked.get(slug)!;
        const r = await record('read', name, node.url, 'GET', path, { accept: 'application/json' });
        if (r?.status === 200) {
          const seen = versionOf((JSON.parse(r.text) as { title: string }).title);
          if (!(seen >= floor)) stale.push(`${name} ${path}: v${seen} after v${floor} was acknowledged (${String(r.headers['x-cache'])}, window ${window})`);
        }
        await pause(r);
      }
    }

    /** Signed reads and writes, alternating instances. */
    async function signer(): Promise<void> {
      let v = 1;
      for (let op = 0; running && op < MAX_OPS_PER_CLIENT; op++) {
        const to = op % 2 === 0 ? A : B;
        let r: Reply | undefined;
        if (op % 2 === 0) {
          const path = `/articles/${signedSlug}`;
          const body = article(`${signedSlug} v${v}`);
          const version = v++;
          r = await record('signed-write', to.name, to.base, 'PUT', path, { ...signed('PUT', path, body), 'content-type': 'application/xml' }, body);
          if (r !== undefined && r.status >= 200 && r.status < 300) acked.set(signedSlug, version);
        } else {
          const path = `/articles/${slugs[op % slugs.length]}`;
          r = await record('signed-read', to.name, to.base, 'GET', path, { ...signed('GET', path), accept: 'application/json' });
        }
        await sleep(r === undefined || r.status >= 500 ? 50 : 10);
      }
    }

    const load = Promise.all([
      ...Array.from({ length: WRITERS }, (_, w) => writer(w)),
      ...Array.from({ length: 4 }, (_, n) => reader(n)),
      signer(),
    ]);

    let killedAt = 0;
    let aBackAt = 0;
    let redisDownAt = 0;
    let redisBackAt = 0;
    try {
      await sleep(PHASE_MS.steady);
      enter('A killed');
      killedAt = Date.now();
      A.child!.kill('SIGKILL');
      await new Promise<void>((resolve) => (A.child!.exitCode !== null || A.child!.signalCode !== null ? resolve() : A.child!.once('exit', () => resolve())));
      await sleep(PHASE_MS.killed);
      // Same port, same database: migrations run again and must be idempotent.
      await startInstance(A);
      aBackAt = Date.now();
      enter('A back');
      await sleep(PHASE_MS.back);
      enter('Redis down');
      await redis!.stop();
      redisDownAt = Date.now();
      await sleep(PHASE_MS.redisDown);
      enter('Redis back');
      await redis!.start();
      redisBackAt = Date.now();
      await sleep(PHASE_MS.redisBack);
    } finally {
      running = false;
      await load;
    }

    // After the faults: signed requests work again on both, and nonces are still shared.
    assert.ok(await signedRecovers(A, 20_000), `signed requests to A never recovered after Redis came back:\n${A.output().slice(-3000)}`);
    assert.ok(await signedRecovers(B, 20_000), `signed requests to B never recovered after Redis came back:\n${B.output().slice(-3000)}`);
    await assertNonceShared(A, B);
    await assertNonceShared(B, A);
    for (const i of [A, B]) assert.match(i.output(), /Redis unreachable/, `${i.name} logged the outage at warn`);

    // No acknowledged write lost: each article holds its last acknowledged version or a later attempt.
    const lost: string[] = [];
    for (const [slug, v] of acked) {
      for (const i of [A, B]) {
        const r = await call(i.base, 'GET', `/articles/${slug}`, { accept: 'application/json' });
        const seen = r.status === 200 ? versionOf((JSON.parse(r.text) as { title: string }).title) : NaN;
        if (!(seen >= v)) lost.push(`${slug} on ${i.name}: ${r.status} v${seen}, v${v} was acknowledged`);
      }
    }
    for (const [location, title] of posted) {
      const r = await call(B.base, 'GET', location, { accept: 'application/json' });
      if (r.status !== 200 || (JSON.parse(r.text) as { title: string }).title !== title) lost.push(`POST ${location} (${title}): ${r.status}`);
    }

    // The table: counts per window.
    const is5xx = (o: Outcome) => o.status >= 500;
    const failed = (o: Outcome) => o.status === 0;
    const rows = WINDOWS.map((w) => {
      const inW = outcomes.filter((o) => o.window === w);
      const count = (p: (o: Outcome) => boolean) => inW.filter(p).length;
      return {
        window: w,
        ms: (windowStart.get(WINDOWS[WINDOWS.indexOf(w) + 1]!) ?? Date.now()) - (windowStart.get(w) ?? 0),
        requests: inW.length,
        reads: count((o) => o.kind === 'read'),
        writes: count((o) => o.kind === 'write' || o.kind === 'post' || o.kind === 'signed-write'),
        'writes ok': count((o) => (o.kind === 'write' || o.kind === 'post' || o.kind === 'signed-write') && o.status >= 200 && o.status < 300),
        signed: count((o) => o.kind.startsWith('signed')),
        'signed 503': count((o) => o.kind.startsWith('signed') && o.status === 503),
        '5xx V1': count((o) => o.target === 'V1' && is5xx(o)),
        '5xx V2': count((o) => o.target === 'V2' && is5xx(o)),
        '5xx A': count((o) => o.target === 'A' && is5xx(o)),
        '5xx B': count((o) => o.target === 'B' && is5xx(o)),
        'conn. failed': count(failed),
      };
    });
    const lastV1Failure = Math.max(0, ...outcomes.filter((o) => o.target === 'V1' && (o.status === 0 || o.status >= 500)).map((o) => o.end));
    const lastSigned503 = Math.max(0, ...outcomes.filter((o) => o.kind.startsWith('signed') && o.status === 503).map((o) => o.end));
    const totals = {
      'A down ms': aBackAt - killedAt,
      'V1 failing after A back ms': Math.max(0, lastV1Failure - aBackAt),
      'signed 503 after Redis back ms': Math.max(0, lastSigned503 - redisBackAt), requests: outcomes.length, writes: outcomes.filter((o) => o.kind !== 'read' && o.kind !== 'signed-read').length, 'stale reads': stale.length, 'lost writes': lost.length };
    const headers = Object.keys(rows[0]!);
    console.log(['multi-instance faults: counts per window (a request counts in the window it began in)', `| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${Object.values(r).join(' | ')} |`), `totals: ${JSON.stringify(totals)}`].join('\n'));

    assert.deepEqual(stale, [], 'reads older than an acknowledged write');
    assert.deepEqual(lost, [], 'acknowledged writes lost');

    // Fail closed while Redis is down: no signed request that began and ended inside the outage got through.
    const outage = outcomes.filter((o) => o.kind.startsWith('signed') && o.start >= redisDownAt && o.end <= redisBackAt);
    assert.ok(outage.length > 0, 'signed requests were sent while Redis was down');
    assert.deepEqual(outage.filter((o) => o.status !== 503).map((o) => `${o.kind} ${o.target}: ${o.status} ${o.error ?? ''}`), [], 'signed requests while Redis was down');

    // Nothing else fails, in any window, unless it needed the killed instance A while it was down:
    // in flight at the kill, or sent before varnish 1 tried A again after it came back (varnishd
    // holds a refusing backend down for backend_remote_error_holddown, 0.25 s by default).
    const neededDeadA = (o: Outcome) => (o.target === 'A' || o.target === 'V1') && o.end >= killedAt && o.start <= aBackAt + 2000;
    const signedOutage = (o: Outcome) => o.kind.startsWith('signed') && o.status === 503 && o.end >= redisDownAt && o.start <= redisBackAt + 10_000;
    const bad = outcomes.filter((o) => (o.status === 0 || o.status >= 500) && !neededDeadA(o) && !signedOutage(o));
    assert.deepEqual(bad.map((o) => `${o.window} ${o.kind} ${o.target}: ${o.status} ${o.error ?? ''}`), [], 'failures outside the fault they belong to');
    // 2xx everywhere else: no 4xx crept in (a refused Basic login, a replayed nonce).
    const refused = outcomes.filter((o) => o.status >= 400 && o.status < 500);
    assert.deepEqual(refused.map((o) => `${o.window} ${o.kind} ${o.target}: ${o.status}`), [], 'requests refused');
  });
});
