import { test } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { BoundedMap } from '../../src/util/bounded-map.js';

test('a full map forgets its oldest key to take a new one', () => {
  const m = new BoundedMap<string, number>(2);
  m.set('a', 1).set('b', 2).set('c', 3);
  assert.deepEqual([...m.keys()], ['b', 'c']);
  assert.equal(m.get('a'), undefined);
});

test('replacing a present key in a full map evicts nothing', () => {
  const m = new BoundedMap<string, number>(2);
  m.set('a', 1).set('b', 2).set('a', 9);
  assert.deepEqual([...m.entries()], [['a', 9], ['b', 2]]);
});

test('the size never passes the limit under many distinct keys', () => {
  const m = new BoundedMap<number, number>(100);
  for (let i = 0; i < 10_000; i++) m.set(i, i);
  assert.equal(m.size, 100);
  assert.equal(m.get(9_999), 9_999);
});

test('a limit that is not a positive integer is refused', () => {
  assert.throws(() => new BoundedMap(0), RangeError);
  assert.throws(() => new BoundedMap(1.5), RangeError);
});
