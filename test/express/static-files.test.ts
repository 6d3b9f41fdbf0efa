/**
 * @module test/express/static-files
 * Files through roa/express: res.sendFile's options and errors, res.download's
 * Content-Disposition and callback, and express.static (serve-static) with ranges and 304s.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from '../../src/express/index.js';
import type { ExpressRequest } from '../../src/express/request.js';
import type { ExpressResponse } from '../../src/express/response.js';
import { request, withServer } from '../helpers/server.js';

process.env.NODE_ENV = 'test';

type Handler = (req: ExpressRequest, res: ExpressResponse, next: (err?: unknown) => void) => void;
type ErrorHandler = (err: { status?: number; code?: string }, req: ExpressRequest, res: ExpressResponse, next: unknown) => void;

let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'roa-express-files-'));
  await writeFile(join(root, 'name.txt'), 'tobi');
  await writeFile(join(root, '.secret'), 'hidden');
  await mkdir(join(root, 'dir'));
  await writeFile(join(root, 'dir', 'index.html'), '<p>index</p>');
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Answers errors with `status code`, so the test sees what reached `next(err)` (four parameters: an error handler). */
const showError: ErrorHandler = (err, _req, res, _next) => res.status(err.status ?? 500).send(`${err.status} ${err.code ?? ''}`.trim());

function appWith(handler: Handler): ReturnType<typeof express> {
  const app = express();
  app.use(handler as never);
  app.use(showError as never);
  return app;
}

describe('roa/express files', () => {
  it('sendFile sends a file by absolute path or root, with type, length, ETag and Last-Modified', async () => {
    const app = appWith((req, res) => (req.path === '/abs' ? res.sendFile(join(root, 'name.txt')) : res.sendFile('name.txt', { root })));
    await withServer(app, async (base) => {
      for (const path of ['/abs', '/root']) {
        const res = await request(base, 'GET', path);
        assert.equal(res.status, 200);
        assert.equal(res.text, 'tobi');
        assert.equal(res.headers['content-type'], 'text/plain; charset=UTF-8');
        assert.ok(res.headers.etag);
        assert.ok(res.headers['last-modified']);
      }
    });
  });

  it('sendFile refuses a relative path without root at the call', () => {
    const res = Object.create(express.response) as ExpressResponse;
    assert.throws(() => res.sendFile('name.txt'), /path must be absolute or specify root/);
    assert.throws(() => res.sendFile(''), /path argument is required/);
  });

  it('sendFile hands 404, 403 for dotfiles and .. to next, and reports to its callback instead when given', async () => {
    const app = appWith((req, res, next) => {
      if (req.path === '/missing') res.sendFile('nope.txt', { root });
      else if (req.path === '/dot') res.sendFile('.secret', { root, dotfiles: 'deny' });
      else if (req.path === '/up') res.sendFile('../name.txt', { root: join(root, 'dir') });
      else res.sendFile('nope.txt', { root }, (err) => (err ? res.status(299).send(`callback ${(err as { code?: string }).code}`) : next()));
    });
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/missing')).text, '404 ENOENT');
      assert.equal((await request(base, 'GET', '/dot')).status, 403);
      assert.equal((await request(base, 'GET', '/up')).status, 403);
      const cb = await request(base, 'GET', '/cb');
      assert.deepEqual([cb.status, cb.text], [299, 'callback ENOENT']);
    });
  });

  it('sendFile applies headers, maxAge, immutable and answers ranges and conditional requests', async () => {
    const app = appWith((_req, res) => res.sendFile('name.txt', { root, headers: { 'X-Extra': 'yes' }, maxAge: '1h', immutable: true }));
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/');
      assert.equal(res.headers['x-extra'], 'yes');
      assert.equal(res.headers['cache-control'], 'public, max-age=3600, immutable');
      const part = await request(base, 'GET', '/', { headers: { Range: 'bytes=1-2' } });
      assert.deepEqual([part.status, part.text, part.headers['content-range']], [206, 'ob', 'bytes 1-2/4']);
      const again = await request(base, 'GET', '/', { headers: { 'If-None-Match': String(res.headers.etag) } });
      assert.equal(again.status, 304);
    });
  });

  it('download names the attachment, keeps the caller options object, and calls back when done', async () => {
    const options = { root, headers: { 'Content-Disposition': 'inline', 'X-Kept': '1' } };
    let outcome: unknown = 'not called';
    const app = appWith((req, res) => {
      if (req.path === '/named') res.download('name.txt', 'tobi ☃.txt', options);
      else res.download(join(root, 'name.txt'), (err) => { outcome = err; });
    });
    await withServer(app, async (base) => {
      const named = await request(base, 'GET', '/named');
      assert.equal(named.headers['content-disposition'], 'attachment; filename="tobi ?.txt"; filename*=UTF-8\'\'tobi%20%E2%98%83.txt');
      assert.equal(named.headers['x-kept'], '1');
      assert.deepEqual(options.headers, { 'Content-Disposition': 'inline', 'X-Kept': '1' });
      const plain = await request(base, 'GET', '/plain');
      assert.equal(plain.headers['content-disposition'], 'attachment; filename="name.txt"');
      assert.equal(plain.text, 'tobi');
      for (let i = 0; i < 50 && outcome === 'not called'; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(outcome, undefined);
    });
  });

  it('express.static serves files and index pages, redirects a directory to its slash, falls through on a miss', async () => {
    const app = express();
    app.use('/s', express.static(root, { maxAge: 1000 }));
    app.use(((_req: ExpressRequest, res: ExpressResponse) => res.status(404).send('fell through')) as never);
    await withServer(app, async (base) => {
      const file = await request(base, 'GET', '/s/name.txt');
      assert.deepEqual([file.status, file.text, file.headers['cache-control']], [200, 'tobi', 'public, max-age=1']);
      assert.equal((await request(base, 'GET', '/s/dir/')).text, '<p>index</p>');
      const dir = await request(base, 'GET', '/s/dir');
      assert.deepEqual([dir.status, dir.headers.location], [301, '/s/dir/']);
      assert.equal((await request(base, 'GET', '/s/nothing.txt')).text, 'fell through');
      assert.equal((await request(base, 'GET', '/s/.secret')).text, 'fell through');
    });
  });
});
