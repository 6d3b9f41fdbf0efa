/**
 * @module cli/commands/client-oauth1
 * The OAuth 1.0a side of `roa client`: `add ID --oauth1` registers a consumer (RFC 5849 "client"),
 * `revoke ID` revokes the token credentials issued to it; `list` and `remove` call in here for consumers.
 */
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { checkCallbackUri } from '../../auth/oauth1-flow/oauth1-callback.js';
import { sealConsumerSecret } from '../../auth/oauth1/store-credentials.js';
import { loadServerKey, SecretBox } from '../../auth/secret-box.js';
import { generateToken } from '../../auth/tokens.js';
import type { Store } from '../../storage/store.js';
import { checkChosenSecret } from '../chosen-secret.js';
import { resolveOption, SERVE_OPTIONS } from '../options.js';
import { withStore } from './with-store.js';

/** Collects a repeatable option's values (`--callback A --callback B`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Adds the OAuth 1 flags to `roa client add`. */
export function oauth1AddOptions(add: Command): Command {
  return add
    .option('--oauth1', 'register an OAuth 1.0a client (consumer), which acts for whoever approves it')
    .option('--rsa-public-key <file>', 'OAuth 1: PEM file of the RSA public key RSA-SHA1 signatures are checked with')
    .option('--callback <uri>', 'OAuth 1: a callback URI the client may name (repeatable; "oob" for out-of-band; default any)', collect)
    .option(SERVE_OPTIONS.secretKeyFile.flag, 'OAuth 1: server key file sealing the shared secret (or env ROA_SECRET_KEY)');
}

/**
 * `roa client add ID --oauth1`: the shared secret is generated (printed once) unless given, or left
 * out for an RSA-only client given `--rsa-public-key` alone.
 */
export async function addOAuth1Consumer(clientId: string, flags: Record<string, unknown>): Promise<void> {
  if (flags.scopes !== undefined) throw new Error('--scopes is for OAuth 2 clients; an OAuth 1 client acts with the role of the user who approves it');
  if (flags.redirectUri !== undefined || flags.public !== undefined) throw new Error('--redirect-uri and --public are for OAuth 2 clients; an OAuth 1 client names --callback URIs');
  const given = typeof flags.secret === 'string' ? flags.secret : undefined;
  if (given !== undefined) checkChosenSecret('--secret', given);
  let rsaPem: string | null = null;
  if (typeof flags.rsaPublicKey === 'string') {
    rsaPem = readFileSync(flags.rsaPublicKey, 'utf8');
    if (!isRsaPublicKey(rsaPem)) throw new Error(`${flags.rsaPublicKey} holds no RSA public key in PEM form`);
  }
  const callbacks = Array.isArray(flags.callback) ? (flags.callback as string[]) : [];
  for (const uri of callbacks) {
    const problem = checkCallbackUri(uri);
    if (problem !== undefined) throw new Error(`--callback ${uri}: ${problem}`);
  }
  const secret = given ?? (rsaPem === null ? generateToken() : undefined);
  const box = new SecretBox(loadServerKey({ keyFile: resolveOption(SERVE_OPTIONS.secretKeyFile, flags.secretKeyFile) }).key);
  const userName = typeof flags.user === 'string' ? flags.user : null;
  await withStore(flags, async (store) => {
    await store.oauth1.createConsumer({
      clientId, sealedSecret: secret === undefined ? null : sealConsumerSecret(box, clientId, secret), rsaPublicKey: rsaPem, callbacks, userName,
    });
  });
  const methods = signatureMethods(secret !== undefined, rsaPem !== null);
  console.log(`added OAuth 1 client ${clientId} (${methods.join(', ')}; callbacks: ${callbacks.length > 0 ? callbacks.join(' ') : 'any'})`);
  if (given === undefined && secret !== undefined) console.log(`client_secret: ${secret}`);
}

/** Refuses the OAuth 1 flags on an OAuth 2 registration, which would silently ignore them. */
export function refuseOAuth1Flags(flags: Record<string, unknown>): void {
  if (flags.callback !== undefined || flags.rsaPublicKey !== undefined) throw new Error('--callback and --rsa-public-key are for OAuth 1 clients: add --oauth1');
}

/** The lines `roa client list` prints for OAuth 1 clients: id, `oauth1`, user, callbacks. */
export async function listOAuth1Consumers(store: Store): Promise<string[]> {
  return (await store.oauth1.listConsumers()).map((c) => `${c.clientId}\toauth1\t${c.userName ?? '-'}\t${c.callbacks.join(' ') || '*'}`);
}

/** The signature methods a consumer can use: the shared-secret ones with a secret, RSA-SHA1 with a key. */
function signatureMethods(secret: boolean, rsaKey: boolean): string[] {
  return [...(secret ? ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT'] : []), ...(rsaKey ? ['RSA-SHA1'] : [])];
}

/** The lines `roa client show` prints for an OAuth 1 client, or undefined when there is none of that id. */
export async function showOAuth1Consumer(store: Store, clientId: string): Promise<string[] | undefined> {
  const c = await store.oauth1.getConsumer(clientId);
  if (c === undefined) return undefined;
  const methods = signatureMethods(c.sealedSecret !== null, c.rsaPublicKey !== null);
  return [
    `client_id: ${c.clientId}`,
    'type: oauth1',
    `user: ${c.userName ?? '-'}`,
    `signature_methods: ${methods.join(' ')}`,
    ...(c.callbacks.length > 0 ? c.callbacks.map((uri) => `callback: ${uri}`) : ['callback: * (any absolute URI, or oob)']),
    `created: ${c.createdAt.toISOString()}`,
  ];
}

/** Adds `roa client revoke ID [--user NAME]`. */
export function registerClientRevoke(client: Command): void {
  client
    .command('revoke <client_id>')
    .description("revoke an OAuth 1 client's token credentials (every user's, or one user's with --user)")
    .option('--user <name>', 'only the token credentials this user approved')
    .option(SERVE_OPTIONS.db.flag, 'database')
    .option(SERVE_OPTIONS.schema.flag, 'PostgreSQL schema (env ROA_PG_SCHEMA)')
    .action(async (clientId: string, flags: Record<string, unknown>) => {
      const userName = typeof flags.user === 'string' ? flags.user : undefined;
      const revoked = await withStore(flags, async (store) => {
        if ((await store.oauth1.getConsumer(clientId)) === undefined) {
          const oauth2 = (await store.getClient(clientId)) !== undefined;
          throw new Error(oauth2 ? `'${clientId}' is an OAuth 2 client: revoke its tokens with POST /oauth/revoke, or remove it` : `no OAuth 1 client '${clientId}'`);
        }
        return store.oauth1.revokeTokenCredentials({ clientId, ...(userName !== undefined ? { userName } : {}) });
      });
      console.log(`${revoked} OAuth 1 token credential${revoked === 1 ? '' : 's'} of ${clientId}${userName !== undefined ? ` for ${userName}` : ''} revoked`);
    });
}

function isRsaPublicKey(pem: string): boolean {
  try {
    return createPublicKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}
