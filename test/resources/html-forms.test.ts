import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { send, startTestService, type TestService } from '../helpers/service.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const FORM = 'application/x-www-form-urlencoded';

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function multipart(fields: Record<string, string>): { body: string; type: string } {
  const boundary = '----roa-test-boundary';
  const body = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`;
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const unquote = (s: string) => s.replace(/&quot;/g, '"').replace(/&amp;/g, '&');

describe('HTML forms of the browsable API', () => {
  let svc: TestService;
  let editor: string;
  let origin: string;
  before(async () => {
    svc = await startTestService();
    editor = await svc.addUser('ed', 'editor');
    origin = svc.base;
  });
  after(() => svc.close());

  const browser = (extra: Record<string, string> = {}) => ({ accept: BROWSER, authorization: editor, origin, ...extra });

  async function create(title = 'Tea'): Promise<string> {
    const res = await send(svc.base, 'POST', '/articles', { headers: browser({ 'content-type': FORM }), body: form({ title, 'price[amount]': '9.90', 'price[currency]': 'eur' }) });
    assert.equal(res.status, 303);
    return res.headers.location!;
  }

  async function pageEtag(path: string): Promise<string> {
    const page = await send(svc.base, 'GET', path, { headers: browser() });
    return unquote(/name="_etag" value="([^"]+)"/.exec(page.text)![1]!);
  }

  it('creates from a urlencoded form and redirects (303) to the new article', async () => {
    const path = await create('Sencha');
    assert.match(path, /^\/article\/\d+$/);
    const xml = await send(svc.base, 'GET', path);
    assert.equal(xml.text, '<article><title>Sencha</title><price currency="eur">9.90</price></article>');
  });

  it('replays a form create retried with the same Idempotency-Key: the same 303, nothing created twice', async () => {
    const init = { headers: browser({ 'content-type': FORM, 'idempotency-key': 'form-retry-1' }), body: form({ title: 'Once', 'price[amount]': '1.00', 'price[currency]': 'eur' }) };
    const first = await send(svc.base, 'POST', '/articles', init);
    const again = await send(svc.base, 'POST', '/articles', init);
    assert.equal(first.status, 303);
    assert.equal(again.status, 303);
    assert.equal(again.headers.location, first.headers.location);
    assert.equal(again.headers['idempotent-replayed'], 'true');
  });

  it('creates from a multipart form the same way', async () => {
    const { body, type } = multipart({ title: 'Matcha', 'price[amount]': '20.00', 'price[currency]': 'jpy' });
    const res = await send(svc.base, 'POST', '/articles', { headers: browser({ 'content-type': type }), body });
    assert.equal(res.status, 303);
    const xml = await send(svc.base, 'GET', res.headers.location!);
    assert.equal(xml.text, '<article><title>Matcha</title><price currency="jpy">20.00</price></article>');
  });

  it('replaces with _method=PUT and the page\'s ETag, then redirects (303) to the article', async () => {
    const path = await create();
    const etag = await pageEtag(path);
    const res = await send(svc.base, 'POST', path, { headers: browser({ 'content-type': FORM }), body: form({ _method: 'PUT', _etag: etag, title: 'Oolong', 'price[amount]': '12.50', 'price[currency]': 'eur' }) });
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, path);
    const xml = await send(svc.base, 'GET', path);
    assert.equal(xml.text, '<article><title>Oolong</title><price currency="eur">12.50</price></article>');
  });

  it('replaces with _method=PUT sent as multipart/form-data', async () => {
    const path = await create();
    const { body, type } = multipart({ _method: 'PUT', _etag: await pageEtag(path), title: 'Puerh', 'price[amount]': '3.00', 'price[currency]': 'eur' });
    const res = await send(svc.base, 'POST', path, { headers: browser({ 'content-type': type }), body });
    assert.equal(res.status, 303);
    assert.match((await send(svc.base, 'GET', path)).text, /Puerh/);
  });

  it('refuses an edit of a stale copy: 412 page linking to the current version, nothing written', async () => {
    const path = await create();
    const stale = await pageEtag(path);
    await send(svc.base, 'POST', path, { headers: browser({ 'content-type': FORM }), body: form({ _method: 'PUT', _etag: stale, title: 'First', 'price[amount]': '1.00', 'price[currency]': 'eur' }) });
    const res = await send(svc.base, 'POST', path, { headers: browser({ 'content-type': FORM }), body: form({ _method: 'PUT', _etag: stale, title: 'Second', 'price[amount]': '2.00', 'price[currency]': 'eur' }) });
    assert.equal(res.status, 412);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.ok(res.text.includes(`<a href="${path}">See the current version</a>`));
    assert.match((await send(svc.base, 'GET', path)).text, /First/);
    const del = await send(svc.base, 'POST', path, { headers: browser({ 'content-type': FORM }), body: form({ _method: 'DELETE', _etag: stale }) });
    assert.equal(del.status, 412);
    assert.equal((await send(svc.base, 'GET', path)).status, 200);
  });

  it('deletes with _method=DELETE and the page\'s ETag, then redirects (303) to the collection', async () => {
    const path = await create();
    const res = await send(svc.base, 'POST', path, { headers: browser({ 'content-type': FORM }), body: form({ _method: 'DELETE', _etag: await pageEtag(path) }) });
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, '/articles');
    assert.equal((await send(svc.base, 'GET', path)).status, 404);
  });

  it('shows the form again with the messages on invalid input (422), and writes nothing', async () => {
    const path = await create('Keep me');
    const res = await send(svc.base, 'POST', path, { headers: browser({ 'content-type': FORM }), body: form({ _method: 'PUT', _etag: await pageEtag(path), title: '<b>x</b>', 'price[amount]': 'ten', 'price[currency]': 'EURO' }) });
    assert.equal(res.status, 422);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(res.text, /<code>price\.amount<\/code>/);
    assert.match(res.text, /<code>price\.currency<\/code>/);
    assert.match(res.text, /value="&lt;b&gt;x&lt;\/b&gt;"/);
    assert.match(res.text, /name="_method" value="PUT"/);
    assert.match((await send(svc.base, 'GET', path)).text, /Keep me/);
    const created = await send(svc.base, 'POST', '/articles', { headers: browser({ 'content-type': FORM }), body: form({ title: '', 'price[amount]': '1', 'price[currency]': 'eur' }) });
    assert.equal(created.status, 422);
    assert.match(created.text, /<form method="post" action="\/articles">/);
  });

  it('leaves API clients as they were: an XML PUT answers 200 with XML, a form POST without HTML in Accept 201', async () => {
    const path = await create();
    const put = await send(svc.base, 'PUT', path, { headers: { authorization: editor, 'content-type': 'application/xml' }, body: '<article><title>Api</title><price currency="eur">1.00</price></article>' });
    assert.equal(put.status, 200);
    assert.equal(put.headers['content-type'], 'application/xml; charset=utf-8');
    const post = await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': FORM }, body: form({ title: 'Curl', 'price[amount]': '1.00', 'price[currency]': 'eur' }) });
    assert.equal(post.status, 201);
    const del = await send(svc.base, 'DELETE', path, { headers: { authorization: editor } });
    assert.equal(del.status, 204);
  });

  describe('cross-site forms (CSRF)', () => {
    for (const [name, headers] of [
      ['a cross-site Origin', { origin: 'http://evil.example' }],
      ['Origin: null', { origin: 'null' }],
      ['Sec-Fetch-Site: cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site: same-site without Origin', { 'sec-fetch-site': 'same-site' }],
    ] as const) {
      it(`refuses a form write with ${name}: 403, nothing done`, async () => {
        const path = await create('Untouched');
        const etag = await pageEtag(path);
        const h = { accept: BROWSER, authorization: editor, 'content-type': FORM, ...headers };
        const del = await send(svc.base, 'POST', path, { headers: h, body: form({ _method: 'DELETE', _etag: etag }) });
        assert.equal(del.status, 403);
        assert.equal(del.headers['content-type'], 'text/html; charset=utf-8');
        const put = await send(svc.base, 'POST', path, { headers: h, body: form({ _method: 'PUT', _etag: etag, title: 'Hacked', 'price[amount]': '0', 'price[currency]': 'eur' }) });
        assert.equal(put.status, 403);
        const { body, type } = multipart({ _method: 'DELETE', _etag: etag });
        const mp = await send(svc.base, 'POST', path, { headers: { ...h, 'content-type': type }, body });
        assert.equal(mp.status, 403);
        const created = await send(svc.base, 'POST', '/articles', { headers: h, body: form({ title: 'Spam', 'price[amount]': '0', 'price[currency]': 'eur' }) });
        assert.equal(created.status, 403);
        const now = await send(svc.base, 'GET', path);
        assert.equal(now.status, 200);
        assert.match(now.text, /Untouched/);
      });
    }

    it('accepts Sec-Fetch-Site: same-origin without Origin', async () => {
      const path = await create();
      const res = await send(svc.base, 'POST', path, {
        headers: { accept: BROWSER, authorization: editor, 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
        body: form({ _method: 'DELETE', _etag: await pageEtag(path) }),
      });
      assert.equal(res.status, 303);
    });
  });
});

describe('signing in to the browsable API', () => {
  let svc: TestService;
  let editor: string;
  before(async () => {
    svc = await startTestService();
    editor = await svc.addUser('ed', 'editor');
  });
  after(() => svc.close());

  it('keeps anonymous reads 200 and links to the sign-in page', async () => {
    const res = await send(svc.base, 'GET', '/articles', { headers: { accept: BROWSER } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['www-authenticate'], undefined);
    assert.match(res.text, /<a class="who" href="\/login\?next=%2Farticles">Sign in<\/a>/);
  });

  it('answers the sign-in link with a 401 Basic challenge, then sends the signed-in browser back (303)', async () => {
    const challenge = await send(svc.base, 'GET', '/login?next=%2Farticles', { headers: { accept: BROWSER } });
    assert.equal(challenge.status, 401);
    assert.match(challenge.headers['www-authenticate']!, /^Basic realm="roa"/);
    assert.match(challenge.headers['content-security-policy']!, /default-src 'none'/);
    const wrong = await send(svc.base, 'GET', '/login?next=%2Farticles', { headers: { accept: BROWSER, authorization: 'Basic ' + Buffer.from('ed:wrong-password').toString('base64') } });
    assert.equal(wrong.status, 401);
    const ok = await send(svc.base, 'GET', '/login?next=%2Farticles', { headers: { accept: BROWSER, authorization: editor } });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.location, '/articles');
    const page = await send(svc.base, 'GET', '/articles', { headers: { accept: BROWSER, authorization: editor } });
    assert.match(page.text, /Signed in as <strong>ed<\/strong> \(editor\)/);
    assert.equal(page.headers['cache-control'], 'private, no-cache');
  });

  it('sends a signed-in browser only to a path of this origin', async () => {
    for (const next of ['//evil.example/x', 'http://evil.example/', '/\\evil.example']) {
      const res = await send(svc.base, 'GET', `/login?next=${encodeURIComponent(next)}`, { headers: { authorization: editor } });
      assert.equal(res.headers.location, '/articles');
    }
  });

  it('never asks for a password over plain HTTP in production', async () => {
    const prod = await startTestService({ env: 'production' });
    try {
      const res = await send(prod.base, 'GET', '/login', { headers: { accept: BROWSER } });
      assert.equal(res.status, 403);
      assert.equal(res.headers['www-authenticate'], undefined);
    } finally {
      await prod.close();
    }
  });
});
