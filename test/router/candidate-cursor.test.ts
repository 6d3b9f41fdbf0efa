/**
 * @module test/router/candidate-cursor
 * The cursor hands out a router's candidate layers in stack order, completes the first-route
 * search's one-route start when that route passes, and after a rewrite of the path or method
 * looks up only the layers after the last one tried.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { CandidateCursor } from '../../src/router/candidate-cursor.js';
import type { Layer } from '../../src/router/layer.js';
import { Matcher, type Accept } from '../../src/router/matcher.js';
import { Router } from '../../src/router/router.js';

const noop = (): void => {};

function cursorOver(stack: readonly Layer[], path: string, method: string): CandidateCursor {
  const accepts: Accept = (index, m) => stack[index]!.route?.handlesMethod(m) ?? true;
  return new CandidateCursor(new Matcher(stack, { strict: false, sensitive: false }), accepts, path, method);
}

/** Stack indices the cursor hands out until it runs dry, following `rewrites` before the step they key. */
function drain(cursor: CandidateCursor, method: string, rewrites: Record<number, [string, string]> = {}): number[] {
  const seen: number[] = [];
  let m = method;
  for (let step = 0; ; step++) {
    const rewrite = rewrites[step];
    if (rewrite !== undefined) {
      cursor.follow(rewrite[0], rewrite[1]);
      m = rewrite[1];
    }
    const candidate = cursor.take(m);
    if (candidate === undefined) return seen;
    seen.push(candidate.index);
  }
}

describe('CandidateCursor', () => {
  it('starts from the first route answering the method, then hands out the rest in stack order', () => {
    const router = Router();
    router.post('/a/:id', noop);
    router.get('/a/:id', noop);
    router.get('/:x/:id', noop);
    router.get('/b/:id', noop);
    const cursor = cursorOver(router.stack, '/a/1', 'GET');
    const first = cursor.take('GET');
    assert.equal(first?.index, 1);
    assert.deepEqual(first?.params, { id: '1' }, 'the first-route search decodes its params');
    assert.deepEqual(drain(cursor, 'GET'), [2], 'routes for other methods and other paths are dropped');
  });

  it('keeps middleware and every method when the table is not all indexed routes', () => {
    const router = Router();
    router.use('/a', noop);
    router.post('/a/:id', noop);
    router.get('/a/:id', noop);
    assert.deepEqual(drain(cursorOver(router.stack, '/a/1', 'GET'), 'GET'), [0, 2]);
    assert.deepEqual(drain(cursorOver(router.stack, '/a/1', 'OPTIONS'), 'OPTIONS'), [0, 1, 2], 'OPTIONS sees every route (Allow)');
  });

  it('after a rewrite of the method, looks up only the layers after the last one tried', () => {
    const router = Router();
    router.use(noop);
    router.put('/a/:id', noop);
    router.post('/a/:id', noop);
    router.put('/a/:id', noop);
    // POST narrows the list to 0 and 2; then the method becomes PUT: 1 is behind, 3 is next.
    assert.deepEqual(drain(cursorOver(router.stack, '/a/1', 'POST'), 'POST', { 2: ['/a/1', 'PUT'] }), [0, 2, 3]);
  });

  it('after a rewrite of the path, matches the later layers against the new path', () => {
    const router = Router();
    router.use(noop);
    router.get('/a', noop);
    router.get('/b', noop);
    router.get('/a', noop);
    assert.deepEqual(drain(cursorOver(router.stack, '/a', 'GET'), 'GET', { 1: ['/b', 'GET'] }), [0, 2]);
  });
});
