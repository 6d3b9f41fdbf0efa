/** @module test/auth/secret-box */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from '../helpers/node-test.js';
import { decodeServerKey, generateHmacSecret, loadServerKey, openHmacSecret, sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));
  it('round-trips and never repeats a ciphertext', () => {
    const a = box.seal('s3cret', 'ctx');
    assert.notEqual(a, box.seal('s3cret', 'ctx'));
    assert.match(a, /^v1:[A-Za-z0-9_-]+$/);
    assert.ok(!a.includes('s3cret'));
    assert.equal(box.open(a, 'ctx'), 's3cret');
  });
  it('refuses another key, another context, and tampering', () => {
    const blob = box.seal('s3cret', 'ctx');
    assert.throws(() => new SecretBox(randomBytes(32)).open(blob, 'ctx'));
    assert.throws(() => box.open(blob, 'other'));
    const raw = Buffer.from(blob.slice(3), 'base64url');
    raw[raw.length - 1]! ^= 1;
    assert.throws(() => box.open('v1:' + raw.toString('base64url'), 'ctx'));
    assert.throws(() => box.open('v0:abc', 'ctx'));
    assert.throws(() => box.open('v1:abc', 'ctx'));
  });
  it('binds HMAC secrets to their user', () => {
    const blob = sealHmacSecret(box, 'ann', 'k');
    assert.equal(openHmacSecret(box, 'ann', blob), 'k');
    assert.throws(() => openHmacSecret(box, 'bob', blob));
  });
  it('generates 256-bit base64url HMAC secrets', () => {
    assert.match(generateHmacSecret(), /^[A-Za-z0-9_-]{43}$/);
  });
  it('rejects keys that are not 32 bytes', () => {
    assert.throws(() => new SecretBox(randomBytes(16)));
  });
});

describe('loadServerKey', () => {
  const dir = mkdtempSync(join(tmpdir(), 'roa-key-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prefers ROA_SECRET_KEY in hex or base64', () => {
    const key = randomBytes(32);
    assert.deepEqual(loadServerKey({ env: { ROA_SECRET_KEY: key.toString('hex') }, keyFile: join(dir, 'never') }).key, key);
    assert.deepEqual(loadServerKey({ env: { ROA_SECRET_KEY: key.toString('base64') } }).key, key);
    assert.deepEqual(loadServerKey({ env: { ROA_SECRET_KEY: key.toString('base64url') } }).key, key);
  });
  it('fails clearly on a malformed key', () => {
    assert.throws(() => loadServerKey({ env: { ROA_SECRET_KEY: 'short' } }), /32-byte key/);
    assert.throws(() => decodeServerKey(randomBytes(31).toString('hex'), 'x'), /32-byte key/);
  });
  it('creates the key file once with mode 0600 and reuses it', () => {
    const file = join(dir, 'sub', 'secret.key');
    const first = loadServerKey({ env: {}, keyFile: file });
    assert.equal(first.created, true);
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
    const second = loadServerKey({ env: {}, keyFile: file });
    assert.equal(second.created, false);
    assert.deepEqual(second.key, first.key);
    assert.equal(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length, 32);
  });
  it('refuses a key file readable by others', { skip: process.platform === 'win32' }, () => {
    const file = join(dir, 'open.key');
    loadServerKey({ env: {}, keyFile: file });
    chmodSync(file, 0o644);
    assert.throws(() => loadServerKey({ env: {}, keyFile: file }), /chmod 600/);
  });
});
