/**
 * @module auth/secret-box
 * AES-256-GCM encryption of HMAC secrets at rest under a server key (env `ROA_SECRET_KEY` or a key file).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12; // NIST SP 800-38D §8.2: 96-bit random IVs
const TAG_BYTES = 16;
const PREFIX = 'v1:';

export const DEFAULT_KEY_FILE = './data/secret.key';

export interface LoadServerKeyOptions {
  /** Key file used when the env has no ROA_SECRET_KEY; created (mode 0600) when missing. Default ./data/secret.key. */
  keyFile?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ServerKey {
  key: Buffer;
  source: 'env' | 'file';
  /** True when the key file did not exist and was just generated. */
  created: boolean;
}

/**
 * Decodes a 32-byte key written as 64 hex digits or base64/base64url; throws a clear error otherwise.
 */
export function decodeServerKey(text: string, where: string): Buffer {
  const t = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(t)) key = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key === undefined || key.length !== KEY_BYTES) {
    throw new Error(`${where} must hold a 32-byte key as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`)`);
  }
  return key;
}

/**
 * Loads the server key: `ROA_SECRET_KEY` wins; else the key file, generated on first start with mode 0600.
 * Fails at startup (never per request) on a malformed key or a key file readable by group/others.
 * @example
 *   const { key } = loadServerKey({ keyFile: './data/secret.key' });
 *   const box = new SecretBox(key);
 */
export function loadServerKey(options: LoadServerKeyOptions = {}): ServerKey {
  const env = options.env ?? process.env;
  const fromEnv = env.ROA_SECRET_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return { key: decodeServerKey(fromEnv, 'ROA_SECRET_KEY'), source: 'env', created: false };
  const file = options.keyFile ?? DEFAULT_KEY_FILE;
  let created = false;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // 'wx' fails if the file exists, so two processes starting at once cannot overwrite each other's key.
    writeFileSync(file, randomBytes(KEY_BYTES).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600); // the umask may have narrowed the mode further, never widened; be explicit
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
    throw new Error(`Key file ${file} is readable by group or others; run \`chmod 600 ${file}\``);
  }
  return { key: decodeServerKey(readFileSync(file, 'utf8'), `Key file ${file}`), source: 'file', created };
}

/**
 * Authenticated encryption of short secrets. Output: `v1:` + base64url(iv ‖ tag ‖ ciphertext).
 * The associated data binds a ciphertext to its purpose and owner, so a blob copied to another
 * user's row does not decrypt.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== KEY_BYTES) throw new Error('SecretBox: key must be 32 bytes');
    this.key = Buffer.from(key);
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url');
  }

  /** The plaintext, or throws when the blob is malformed, was sealed under another key, or for another aad. */
  open(blob: string, aad: string): string {
    if (!blob.startsWith(PREFIX)) throw new Error('SecretBox: unknown blob format');
    const raw = Buffer.from(blob.slice(PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('SecretBox: blob too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

function hmacAad(userName: string): string {
  return `roa hmac-secret v1 user=${userName}`;
}

/** Encrypts a user's HMAC secret for `Store.setUserHmacSecret` / `createUser({ hmacSecret })`. */
export function sealHmacSecret(box: SecretBox, userName: string, secret: string): string {
  return box.seal(secret, hmacAad(userName));
}

/** Decrypts what `sealHmacSecret` produced for the same user. */
export function openHmacSecret(box: SecretBox, userName: string, blob: string): string {
  return box.open(blob, hmacAad(userName));
}

/** A new HMAC secret: 32 random bytes, base64url (43 characters). The HMAC key is this string's UTF-8 bytes. */
export function generateHmacSecret(): string {
  return randomBytes(32).toString('base64url');
}
