/**
 * @module test/readme/readme-oauth1
 * The README's OAuth 1.0a client commands run as written, in bash, with `npx roa` pointed at the
 * built command, in a directory of their own (so `./data/roa.db` is theirs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from '../helpers/node-test.js';
import { CLI } from '../helpers/roa-cli.js';

const README = readFileSync('README.md', 'utf8');

describe('README: OAuth 1.0a client commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'roa-readme-oauth1-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('run as written', () => {
    const found = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes('client add printer --oauth1'));
    assert.equal(found.length, 1, 'one sh block registers the printer OAuth 1 client');
    const script = found[0]!.replace(/^npx roa /gm, `node ${JSON.stringify(CLI)} `);
    assert.notEqual(script, found[0]);
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'signer.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    const r = spawnSync('bash', ['-e', '-c', script], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ROA_SECRET_KEY: randomBytes(32).toString('base64'), DATABASE_URL: '' } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /client_secret: \S{43}/);
    assert.match(r.stdout, /^printer\toauth1\t-\thttps:\/\/printer\.example\/ready$/m);
    assert.match(r.stdout, /^signer\toauth1\t-\t\*$/m);
    assert.match(r.stdout, /0 OAuth 1 token credentials of printer for ann revoked/);
    assert.match(r.stdout, /removed client printer/);
  });
});
