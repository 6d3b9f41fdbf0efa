/**
 * @module The seeded data every article server opens: one article (id 1), an editor with a password and an
 * HMAC secret, an OAuth client; fixed credentials so scenarios can build headers without asking the server.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { roa } from './roa-dist.mjs';

/** Fixed, benchmark-only credentials (never used outside loopback servers started by the harness). */
export const EDITOR = { name: 'bench-editor', password: 'bench-password-1' };
export const HMAC_SECRET = 'bench-hmac-secret-0123456789abcdefghijklmnopq';
export const CLIENT = { id: 'bench-client', secret: 'bench-client-secret-0123456789abcdefghijklmn' };
/** An OAuth 1.0a client (consumer) and the editor's token credentials for it (RFC 5849 §1.1). */
export const OAUTH1 = {
  consumerKey: 'bench-oauth1-client',
  consumerSecret: 'bench-oauth1-secret-0123456789abcdefghijkl',
  token: 'bench-oauth1-token-0123456789abcdefghijklmnop',
  tokenSecret: 'bench-oauth1-token-secret-0123456789abcdefgh',
};
/** 32 bytes derived from a label: the same SecretBox key in every server process of a run. */
export const SERVER_KEY = createHash('sha256').update('roa-bench-server-key').digest();

export const ARTICLE = { title: 'Benchmark article', price: { amount: '9.99', currency: 'eur' } };
/** The POST /articles body of the articles scenario. */
export const POST_XML = '<article><title>T</title><price currency="eur">9.99</price></article>';

/**
 * Sent with every request of the roa article servers: roa runs in production there, where credentials
 * are taken only over TLS, and a production service stands behind a TLS terminator that says so. This
 * models one on loopback (trusted by default); the peers ignore the field.
 */
export const BEHIND_TLS = Object.freeze({ 'X-Forwarded-Proto': 'https' });
export const basicHeader = (u = EDITOR) => `Basic ${Buffer.from(`${u.name}:${u.password}`).toString('base64')}`;
export const clientBasicHeader = () => `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`;

/**
 * Makes a temp directory, opens a SQLite file store in it through dist's openStore and seeds it.
 * `dispose()` closes the store and removes the directory.
 * @returns {Promise<{ store: any, dir: string, dbPath: string, dispose(): Promise<void> }>}
 */
export async function openSeededStore() {
  const [{ openStore }, { hashPassword }, { SecretBox, sealHmacSecret }, { hashClientSecret }] = await Promise.all([
    roa('storage/open-store.js'),
    roa('auth/passwords.js'),
    roa('auth/secret-box.js'),
    roa('auth/tokens.js'),
  ]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roa-bench-store-'));
  const dbPath = path.join(dir, 'roa.db');
  // BENCH_SQLITE_NONCE_LOG=1: HMAC nonces in the nonce log (`roa serve --sqlite-nonce-log`) instead of the keyed table.
  const store = await openStore(dbPath, { sqliteNonceLog: process.env.BENCH_SQLITE_NONCE_LOG === '1' });
  const article = await store.createArticle(ARTICLE, EDITOR.name);
  if (article.id !== 1) throw new Error(`seeded article got id ${article.id}, expected 1`);
  await store.createUser({
    name: EDITOR.name,
    role: 'editor',
    passwordHash: await hashPassword(EDITOR.password),
    hmacSecret: sealHmacSecret(new SecretBox(SERVER_KEY), EDITOR.name, HMAC_SECRET),
  });
  await store.createClient({
    clientId: CLIENT.id,
    secretHash: hashClientSecret(CLIENT.secret),
    userName: EDITOR.name,
    scopes: ['articles:read', 'articles:write'],
  });
  await seedOAuth1(store);
  let disposed = false;
  return {
    store,
    dir,
    dbPath,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await store.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Registers OAUTH1's client and gives the editor its token credentials, through the storage's own approval and exchange. */
async function seedOAuth1(store) {
  // A build from before OAuth 1 (a --variant of an older dist) has nothing to seed.
  if (store.oauth1 === undefined) return;
  const [{ SecretBox }, { sealConsumerSecret, sealTokenSecret }, { hashToken }] = await Promise.all([
    roa('auth/secret-box.js'),
    roa('auth/oauth1/store-credentials.js'),
    roa('auth/tokens.js'),
  ]);
  const box = new SecretBox(SERVER_KEY);
  const { consumerKey } = OAUTH1;
  await store.oauth1.createConsumer({ clientId: consumerKey, sealedSecret: sealConsumerSecret(box, consumerKey, OAUTH1.consumerSecret), rsaPublicKey: null, callbacks: [], userName: null });
  const now = Date.now();
  const temporary = hashToken('bench-oauth1-temporary');
  await store.oauth1.saveTemporaryCredentials({ tokenHash: temporary, sealedSecret: sealTokenSecret(box, temporary, 'unused'), clientId: consumerKey, callback: 'oob', expiresAtMs: now + 60_000 }, now, 10);
  await store.oauth1.approveTemporaryCredentials(temporary, { verifierHash: 'bench', userName: EDITOR.name }, now);
  const tokenHash = hashToken(OAUTH1.token);
  const done = await store.oauth1.exchangeTemporaryCredentials(temporary, now, () => true, (approved) => ({
    tokenHash, sealedSecret: sealTokenSecret(box, tokenHash, OAUTH1.tokenSecret), clientId: approved.clientId, userName: approved.userName,
  }));
  if (done.status !== 'issued') throw new Error('seeding the OAuth 1 token credentials failed');
}

/** Runs `cleanup` once on SIGTERM/SIGINT (the harness stops servers with SIGTERM), then exits. */
export function onStop(cleanup) {
  let stopping = false;
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      // Bounded: a hung close never keeps a benchmark server alive.
      setTimeout(() => process.exit(0), 1500).unref();
      Promise.resolve()
        .then(cleanup)
        .catch((e) => console.error(e))
        .finally(() => process.exit(0));
    });
  }
}
