/**
 * @module test/http/late-fields
 * Response.setLateHeader and addHeadFilter (finalHead): what the head written carries, over real
 * HTTP, and the field-name tests finalHead and compression scan heads with.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import type { OutgoingHttpHeader } from 'node:http';
import { createApp } from '../../src/app.js';
import { fieldIndex, isFieldName } from '../../src/http/field-name.js';
import type { Request } from '../../src/http/request.js';
import type { Head, Response } from '../../src/http/response.js';
import { request, withServer, type SimpleResponse } from '../helpers/server.js';

async function answer(fn: (req: Request, res: Response) => void): Promise<SimpleResponse> {
  const app = createApp({ env: 'test' });
  app.all('*', fn);
  return withServer(app, (base) => request(base, 'GET', '/'));
}

/** A filter adding X-Filtered in a new list, as compression's Vary filter does. */
const addFiltered = (_res: Response, _status: number, head: Head): Head => (Array.isArray(head) ? [...(head as OutgoingHttpHeader[]), 'X-Filtered', 'yes'] : head);

describe('Response late fields and head filters', () => {
  it('adds a late field to a flat list head', async () => {
    const res = await answer((_req, r) => {
      r.setLateHeader('X-Late', 'one');
      r.writeHead(200, ['Content-Type', 'text/plain']).end('x');
    });
    assert.equal(res.headers['x-late'], 'one');
    assert.equal(res.headers['content-type'], 'text/plain');
  });

  it('leaves a late field out when the head names it in any case, or setHeader set it', async () => {
    const listed = await answer((_req, r) => {
      r.setLateHeader('X-Late', 'late');
      r.writeHead(200, ['x-LATE', 'own']).end();
    });
    assert.equal(listed.headers['x-late'], 'own');
    const mapped = await answer((_req, r) => {
      r.setLateHeader('X-Late', 'late');
      r.setHeader('x-late', 'set');
      r.writeHead(200, ['Content-Type', 'text/plain']).end();
    });
    assert.equal(mapped.headers['x-late'], 'set');
  });

  it('adds a late field to the list a filter made, and keeps both late fields of one name', async () => {
    const res = await answer((_req, r) => {
      r.addHeadFilter(addFiltered);
      r.setLateHeader('X-Late', 'a');
      r.setLateHeader('X-Late', 'b');
      r.writeHead(200, ['Content-Type', 'text/plain']).end();
    });
    assert.equal(res.headers['x-filtered'], 'yes');
    assert.equal(res.headers['x-late'], 'a, b');
  });

  it('never changes the list writeHead was given', async () => {
    const given: OutgoingHttpHeader[] = ['Content-Type', 'text/plain'];
    const filtered = await answer((_req, r) => {
      r.addHeadFilter(addFiltered);
      r.setLateHeader('X-Late', 'one');
      r.writeHead(200, given).end();
    });
    assert.equal(filtered.headers['x-late'], 'one');
    const plain = await answer((_req, r) => {
      r.setLateHeader('X-Late', 'two');
      r.writeHead(200, given).end();
    });
    assert.equal(plain.headers['x-late'], 'two');
    assert.deepEqual(given, ['Content-Type', 'text/plain']);
  });

  it('adds late fields to a head given as an object or none', async () => {
    const object = await answer((_req, r) => {
      r.setLateHeader('X-Late', 'one');
      r.writeHead(200, { 'Content-Type': 'text/plain' }).end();
    });
    assert.equal(object.headers['x-late'], 'one');
    const none = await answer((_req, r) => {
      r.setLateHeader('X-Late', 'two');
      r.end('x');
    });
    assert.equal(none.headers['x-late'], 'two');
  });
});

describe('field names', () => {
  it('compare case-insensitively against a lower-case name', () => {
    assert.equal(isFieldName('Content-Type', 'content-type'), true);
    assert.equal(isFieldName('CONTENT-TYPE', 'content-type'), true);
    assert.equal(isFieldName('Content-Typf', 'content-type'), false);
    assert.equal(isFieldName('Vary', 'vary'), true);
    assert.equal(isFieldName('Varys', 'vary'), false);
    // Only ASCII letters fold: `^` and `~` differ by the bit that case does.
    assert.equal(isFieldName('X^', 'x~'), false);
  });

  it('are found in a flat list, before an end if given', () => {
    const list = ['ETag', '"a"', 'vary', 'Accept', 'X-Late', '1'];
    assert.equal(fieldIndex(list, 'vary'), 2);
    assert.equal(fieldIndex(list, 'x-late'), 4);
    assert.equal(fieldIndex(list, 'x-late', 4), -1);
    assert.equal(fieldIndex(list, 'content-type'), -1);
  });
});
