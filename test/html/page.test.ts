import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { h } from '../../src/html/escape.js';
import { CONTENT_SECURITY_POLICY, renderPage } from '../../src/html/page.js';
import { prefersHtml } from '../../src/html/problem-page.js';
import { stylesheet, STYLESHEET_ETAG, STYLESHEET_PATH } from '../../src/html/stylesheet.js';
import { send, serve, type Served } from '../middleware/harness.js';

describe('html page shell', () => {
  it('escapes every markup character, for text and quoted attributes', () => {
    assert.equal(h('"><img src=x onerror=alert(1)>'), '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    assert.equal(h(`<script>alert('1')</script>&`), '&lt;script&gt;alert(&#39;1&#39;)&lt;/script&gt;&amp;');
  });

  it('renders a document with viewport, the stylesheet, an escaped title and the caller', () => {
    const page = renderPage({ title: '<T>', main: '<p>x</p>', caller: { name: '<ed>', role: 'editor' } });
    assert.match(page, /^<!DOCTYPE html>\n<html lang="en">/);
    assert.ok(page.includes('<meta name="viewport" content="width=device-width, initial-scale=1">'));
    assert.ok(page.includes(`<link rel="stylesheet" href="${STYLESHEET_PATH}">`));
    assert.ok(page.includes('<title>&lt;T&gt;</title>'));
    assert.ok(page.includes('Signed in as <strong>&lt;ed&gt;</strong> (editor)'));
    assert.ok(renderPage({ title: 't', main: '', signIn: '/login?next=%2F' }).includes('<a class="who" href="/login?next=%2F">Sign in</a>'));
  });

  it('has a policy without script or inline style', () => {
    assert.match(CONTENT_SECURITY_POLICY, /^default-src 'none';/);
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /script-src|unsafe-inline/);
  });

  it('prefers HTML for a browser only', () => {
    assert.equal(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
    for (const accept of [undefined, '*/*', 'application/json', 'application/xml', 'text/html;q=0.5, application/json']) assert.equal(prefersHtml(accept), false, accept);
  });
});

describe('stylesheet()', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => app.use(stylesheet()));
  });
  after(() => srv.close());

  it('serves the stylesheet for a year at its versioned path, 304 on its ETag, and passes other paths on', async () => {
    const css = await send(srv.base, 'GET', STYLESHEET_PATH);
    assert.equal(css.status, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(css.headers.etag, STYLESHEET_ETAG);
    const again = await send(srv.base, 'GET', STYLESHEET_PATH, { headers: { 'if-none-match': `W/${STYLESHEET_ETAG}` } });
    assert.equal(again.status, 304);
    assert.equal((await send(srv.base, 'GET', '/_roa/style.old.css')).status, 404);
  });
});
