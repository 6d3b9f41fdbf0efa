import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { send, startTestService, type TestService } from '../helpers/service.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const XML = '<article><title>Green tea</title><price currency="eur">9.90</price></article>';

describe('articles as HTML (browsable API)', () => {
  let svc: TestService;
  let editor: string;
  let other: string;
  let admin: string;
  let reader: string;
  let path: string;
  before(async () => {
    svc = await startTestService();
    editor = await svc.addUser('ed', 'editor');
    other = await svc.addUser('olga', 'editor');
    admin = await svc.addUser('ada', 'admin');
    reader = await svc.addUser('rita', 'reader');
    const res = await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': 'application/xml' }, body: XML });
    path = res.headers.location!;
  });
  after(() => svc.close());

  it('gives a browser HTML, curl without Accept XML, and Accept: application/xml XML, each with Vary: Accept', async () => {
    const html = await send(svc.base, 'GET', path, { headers: { accept: BROWSER } });
    assert.equal(html.status, 200);
    assert.equal(html.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(html.headers.vary!, /Accept/);
    const plain = await send(svc.base, 'GET', path);
    assert.equal(plain.headers['content-type'], 'application/xml; charset=utf-8');
    assert.equal(plain.text, XML);
    const xml = await send(svc.base, 'GET', path, { headers: { accept: 'application/xml' } });
    assert.equal(xml.text, XML);
    const list = await send(svc.base, 'GET', '/articles', { headers: { accept: BROWSER } });
    assert.equal(list.headers['content-type'], 'text/html; charset=utf-8');
  });

  it('follows the page\'s XML and JSON links (?format=, as a browser cannot set Accept) to those representations', async () => {
    const page = await send(svc.base, 'GET', path, { headers: { accept: BROWSER } });
    const links = [...page.text.matchAll(/<a rel="alternate" type="([^"]+)" href="([^"]+)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')] as const);
    assert.deepEqual(links.map(([type]) => type), ['application/xml', 'application/json']);
    for (const [type, href] of links) {
      const res = await send(svc.base, 'GET', href, { headers: { accept: BROWSER } });
      assert.equal(res.status, 200, href);
      assert.equal(res.headers['content-type'], `${type}; charset=utf-8`, href);
    }
    const xml = await send(svc.base, 'GET', `${path}?format=xml`, { headers: { accept: BROWSER } });
    assert.equal(xml.text, XML);
    const json = await send(svc.base, 'GET', '/articles?limit=1&format=json', { headers: { accept: BROWSER } });
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    const html = await send(svc.base, 'GET', `${path}?format=html`);
    assert.equal(html.headers['content-type'], 'text/html; charset=utf-8');
    // The HTML page asked for by ?format=html links to the others once each.
    assert.equal([...html.text.matchAll(/format=/g)].length, 2);
    for (const bad of ['yaml', '']) {
      const res = await send(svc.base, 'GET', `${path}?format=${bad}`);
      assert.equal(res.status, 406, bad);
      assert.match(res.headers['content-type']!, /problem\+json|problem\+xml|text\/html/);
    }
    assert.equal((await send(svc.base, 'GET', `${path}?format=xml&format=json`)).status, 406);
  });

  it('has a strong ETag of its own, and answers 304 to it', async () => {
    const tags = await Promise.all(['text/html', 'application/xml', 'application/json'].map(async (accept) => (await send(svc.base, 'GET', path, { headers: { accept } })).headers.etag!));
    for (const tag of tags) assert.match(tag, /^"[^"]+"$/);
    assert.equal(new Set(tags).size, 3);
    const again = await send(svc.base, 'GET', path, { headers: { accept: BROWSER, 'if-none-match': tags[0]! } });
    assert.equal(again.status, 304);
    const signedIn = await send(svc.base, 'GET', path, { headers: { accept: BROWSER, authorization: editor } });
    assert.notEqual(signedIn.headers.etag, tags[0], 'a page with forms and a name is another page');
  });

  it('shows the article, its links, the response status and headers, Allow and the other representations', async () => {
    const res = await send(svc.base, 'GET', path, { headers: { accept: BROWSER } });
    assert.match(res.text, /<h1>Green tea<\/h1>/);
    assert.match(res.text, /9\.90 EUR/);
    assert.match(res.text, new RegExp(`<a rel="self" href="${path}">`));
    assert.match(res.text, /<a rel="collection" href="\/articles">/);
    assert.match(res.text, /<dt>Status<\/dt><dd>200 OK<\/dd>/);
    assert.ok(res.text.includes(`<dd>${res.headers.etag!.replace(/"/g, '&quot;')}</dd>`));
    assert.ok(res.text.includes(`<dd>${res.headers['cache-control']}</dd>`));
    assert.match(res.text, /<dt>Allow<\/dt><dd>HEAD, GET, OPTIONS<\/dd>/);
    assert.match(res.text, /type="application\/xml"/);
    assert.match(res.text, /type="application\/json"/);
    assert.match(res.text, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  });

  it('sends a strict Content-Security-Policy and a stylesheet it allows', async () => {
    const res = await send(svc.base, 'GET', path, { headers: { accept: BROWSER } });
    const csp = res.headers['content-security-policy']!;
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|script-src/);
    assert.doesNotMatch(res.text, /<script|<style| style=| on[a-z]+=/i);
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(res.text)![1]!;
    const css = await send(svc.base, 'GET', href);
    assert.equal(css.status, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.match(css.headers['cache-control']!, /max-age=31536000, immutable/);
  });

  it('labels every input of every form', async () => {
    const res = await send(svc.base, 'GET', path, { headers: { accept: BROWSER, authorization: editor } });
    const inputs = [...res.text.matchAll(/<input ([^>]*)>/g)].map((m) => m[1]!).filter((a) => !a.includes('type="hidden"'));
    assert.ok(inputs.length >= 3);
    for (const attrs of inputs) {
      const id = /id="([^"]+)"/.exec(attrs)![1];
      assert.ok(res.text.includes(`<label for="${id}">`), `input ${id} has a label`);
    }
  });

  it('shows forms only for what the caller may do: none to anonymous callers and readers', async () => {
    for (const auth of [undefined, reader]) {
      const item = await send(svc.base, 'GET', path, { headers: { accept: BROWSER, ...(auth ? { authorization: auth } : {}) } });
      assert.doesNotMatch(item.text, /<form/);
      const list = await send(svc.base, 'GET', '/articles', { headers: { accept: BROWSER, ...(auth ? { authorization: auth } : {}) } });
      assert.doesNotMatch(list.text, /<form/);
    }
  });

  it('shows an editor the edit and delete forms of their own article, none on another editor\'s, and the create form', async () => {
    const own = await send(svc.base, 'GET', path, { headers: { accept: BROWSER, authorization: editor } });
    assert.match(own.text, /name="_method" value="PUT"/);
    assert.match(own.text, /name="_method" value="DELETE"/);
    assert.ok(own.text.includes(`name="_etag" value="${own.headers.etag!.replace(/"/g, '&quot;')}"`));
    assert.match(own.text, /name="title"/);
    assert.match(own.text, /name="price\[amount\]"/);
    assert.match(own.text, /name="price\[currency\]"/);
    assert.match(own.text, /Signed in as <strong>ed<\/strong> \(editor\)/);
    const others = await send(svc.base, 'GET', path, { headers: { accept: BROWSER, authorization: other } });
    assert.doesNotMatch(others.text, /<form/);
    assert.match(others.text, /<dt>Allow<\/dt><dd>HEAD, GET, OPTIONS<\/dd>/);
    const list = await send(svc.base, 'GET', '/articles', { headers: { accept: BROWSER, authorization: other } });
    assert.match(list.text, /<form method="post" action="\/articles">/);
    const adminPage = await send(svc.base, 'GET', path, { headers: { accept: BROWSER, authorization: admin } });
    assert.match(adminPage.text, /value="PUT"/);
    assert.match(adminPage.text, /value="DELETE"/);
  });

  it('renders hostile titles as text', async () => {
    for (const title of ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>']) {
      const created = await send(svc.base, 'POST', '/articles', {
        headers: { authorization: editor, 'content-type': 'application/json' },
        body: JSON.stringify({ title, price: { amount: '1.00', currency: 'eur' } }),
      });
      assert.equal(created.status, 201);
      const page = await send(svc.base, 'GET', created.headers.location!, { headers: { accept: BROWSER, authorization: editor } });
      assert.doesNotMatch(page.text, /<script>|<img/);
      assert.ok(page.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;') || page.text.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'));
      const list = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: BROWSER } });
      assert.doesNotMatch(list.text, /<script>|<img/);
    }
  });

  it('links the next and previous pages of the collection', async () => {
    for (let i = 0; i < 5; i++) {
      await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': 'application/xml' }, body: XML.replace('Green tea', `Tea ${i}`) });
    }
    const first = await send(svc.base, 'GET', '/articles?limit=2', { headers: { accept: BROWSER } });
    assert.doesNotMatch(first.text, /rel="prev"/);
    const next = /<a rel="next" href="([^"]+)">/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await send(svc.base, 'GET', next, { headers: { accept: BROWSER } });
    assert.equal(second.status, 200);
    const next2 = /<a rel="next" href="([^"]+)">/.exec(second.text)![1]!.replace(/&amp;/g, '&');
    const third = await send(svc.base, 'GET', next2, { headers: { accept: BROWSER } });
    const prev = /<a rel="prev" href="([^"]+)">/.exec(third.text)![1]!.replace(/&amp;/g, '&');
    const back = await send(svc.base, 'GET', prev, { headers: { accept: BROWSER } });
    const items = (t: string) => [...t.matchAll(/<li><a href="(\/article\/\d+)">/g)].map((m) => m[1]);
    assert.deepEqual(items(back.text), items(second.text));
    const firstAgain = /<a rel="prev" href="([^"]+)">/.exec(second.text)![1]!.replace(/&amp;/g, '&');
    assert.equal(firstAgain, '/articles?limit=2');
  });

  it('answers errors as HTML problem pages when HTML is preferred, JSON otherwise', async () => {
    const missing = await send(svc.base, 'GET', '/article/999999', { headers: { accept: BROWSER } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(missing.text, /<h1>404 Not Found<\/h1>/);
    assert.match(missing.headers['content-security-policy']!, /default-src 'none'/);
    const api = await send(svc.base, 'GET', '/article/999999');
    assert.equal(api.headers['content-type'], 'application/problem+json; charset=utf-8');
    const anonymousWrite = await send(svc.base, 'DELETE', path, { headers: { accept: BROWSER } });
    assert.equal(anonymousWrite.status, 401);
    assert.equal(anonymousWrite.headers['content-type'], 'text/html; charset=utf-8');
    const readerWrite = await send(svc.base, 'DELETE', path, { headers: { accept: BROWSER, authorization: reader } });
    assert.equal(readerWrite.status, 403);
    assert.match(readerWrite.text, /<h1>403 Forbidden<\/h1>/);
    const notAcceptable = await send(svc.base, 'GET', path, { headers: { accept: 'image/png' } });
    assert.equal(notAcceptable.status, 406);
  });

  it('answers a path no route matches as an HTML 404 page to a browser and as a problem to API clients', async () => {
    const page = await send(svc.base, 'GET', '/no/such/place?x=1', { headers: { accept: BROWSER } });
    assert.equal(page.status, 404);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(page.text, /<h1>404 Not Found<\/h1>/);
    assert.match(page.text, /Cannot GET \/no\/such\/place</);
    const api = await send(svc.base, 'GET', '/no/such/place');
    assert.equal(api.status, 404);
    assert.equal(api.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(JSON.parse(api.text).code, 'ROA_ERR_NOT_FOUND');
    const xml = await send(svc.base, 'DELETE', '/no/such/place', { headers: { accept: 'application/xml' } });
    assert.equal(xml.status, 404);
    assert.match(xml.headers['content-type']!, /problem\+xml/);
  });
});
