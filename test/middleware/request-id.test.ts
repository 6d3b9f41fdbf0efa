import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { RequestIds, isValidRequestId, requestIdOf, traceIdOf } from '../../src/middleware/request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

describe('requestIdOf', () => {
  it('keeps a valid X-Request-Id', () => {
    assert.equal(requestIdOf('abc-123_x.y:z/w+v=u@t', undefined), 'abc-123_x.y:z/w+v=u@t');
    assert.equal(requestIdOf('a'.repeat(128), undefined), 'a'.repeat(128));
  });

  it('replaces an invalid one with a fresh UUID, never reflecting it', () => {
    for (const bad of ['', 'a b', 'a'.repeat(129), 'x"y', 'id\r\nX-Evil: 1', 'ünï', 'a,b', '<script>']) {
      const id = requestIdOf(bad, undefined);
      assert.match(id, UUID, bad);
      assert.equal(isValidRequestId(bad), false, bad);
    }
    // A repeated field arrives as an array (or joined with ", "): replaced.
    assert.match(requestIdOf(['a', 'b'], undefined), UUID);
  });

  it('takes the trace-id of a valid traceparent when there is no valid X-Request-Id', () => {
    assert.equal(requestIdOf(undefined, PARENT), TRACE);
    assert.equal(requestIdOf('not valid!', PARENT), TRACE);
    assert.equal(requestIdOf('mine', PARENT), 'mine');
    // A later version may add fields.
    assert.equal(traceIdOf(`01-${TRACE}-00f067aa0ba902b7-01-extra`), TRACE);
  });

  it('ignores an invalid traceparent (W3C Trace Context §3.2)', () => {
    for (const bad of [
      `ff-${TRACE}-00f067aa0ba902b7-01`,
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-00f067aa0ba902b7-01`,
      `00-${TRACE}-00f067aa0ba902b7-01-extra`,
      `00-${TRACE}-00f067aa0ba902b7`,
      'garbage',
    ]) {
      assert.equal(traceIdOf(bad), undefined, bad);
      assert.match(requestIdOf(undefined, bad), UUID, bad);
    }
  });

  it('makes a different id for each request without one', () => {
    assert.notEqual(requestIdOf(undefined, undefined), requestIdOf(undefined, undefined));
  });
});

describe('RequestIds', () => {
  it('makes distinct ids in the form of a version-4 UUID, sharing a random prefix', () => {
    const ids = new RequestIds();
    const made = Array.from({ length: 5000 }, () => ids.next());
    for (const id of made) assert.match(id, UUID);
    assert.equal(new Set(made).size, made.length);
    assert.equal(new Set(made.map((id) => id.slice(0, 28))).size, 1);
    // Another process (another instance here) draws another prefix.
    assert.notEqual(new RequestIds().next().slice(0, 28), made[0]!.slice(0, 28));
  });

  it('draws its prefix from the random source, with the version and variant digits set', () => {
    const ids = new RequestIds({ random: (n) => Buffer.alloc(n, 0xff) });
    assert.equal(ids.next(), 'ffffffff-ffff-4fff-bfff-ffff10000000');
    const zeros = new RequestIds({ random: (n) => Buffer.alloc(n, 0) });
    assert.equal(zeros.next(), '00000000-0000-4000-8000-000010000000');
  });

  it('draws a new prefix when its counter runs out, so no id repeats', () => {
    let draws = 0;
    const ids = new RequestIds({ random: (n) => Buffer.alloc(n, ++draws), start: 0x7fff_fffe });
    const made = [ids.next(), ids.next(), ids.next()];
    assert.equal(draws, 2);
    assert.deepEqual(made.map((id) => id.slice(28)), ['7ffffffe', '7fffffff', '10000000']);
    assert.equal(new Set(made).size, 3);
    for (const id of made) assert.match(id, UUID);
  });
});
