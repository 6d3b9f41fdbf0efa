/**
 * @module test/readme/readme-oauth-code
 * The README's client commands of the authorization code flow run as written, in bash, with `npx roa`
 * pointed at the built command, in a directory of their own (so `./data/roa.db` is theirs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from '../helpers/node-test.js';
import { CLI } from '../helpers/roa-cli.js';

const README = readFileSync('README.md', 'utf8');

describe('README: authorization code client commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'roa-readme-code-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('run as written', () => {
    const found = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes('client add phone-app'));
    assert.equal(found.length, 1, 'one sh block registers phone-app');
    const roa = `node ${JSON.stringify(CLI)}`;
    const script = found[0]!.replace(/^npx roa /gm, `${roa} `);
    assert.notEqual(script, found[0]);
    const env = { ...process.env, ROA_SECRET_KEY: randomBytes(32).toString('base64'), DATABASE_URL: '' };
    // The user the README's examples use, made as the Quick start makes users.
    assert.equal(spawnSync('bash', ['-e', '-c', `${roa} user add hana --role editor`], { cwd: dir, encoding: 'utf8', env }).status, 0);
    const r = spawnSync('bash', ['-e', '-c', script], { cwd: dir, encoding: 'utf8', timeout: 60_000, env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /added client web-app for hana[\s\S]*redirect_uri: https:\/\/app\.example\/callback\nclient_secret: \S{43}/);
    assert.match(r.stdout, /added public client phone-app for hana \(articles:read\)\nredirect_uri: http:\/\/127\.0\.0\.1\/callback\nredirect_uri: com\.example\.phone:\/callback\n(?!client_secret)/);
    assert.match(r.stdout, /^phone-app\thana\tarticles:read$/m);
    assert.match(r.stdout, /^client_id: phone-app\ntype: public\nuser: hana\nscopes: articles:read\nredirect_uri: http:\/\/127\.0\.0\.1\/callback\nredirect_uri: com\.example\.phone:\/callback\ncreated: /m);
  });
});
