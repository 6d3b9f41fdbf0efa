/**
 * @module test/gateway/cidr
 * CIDR matching for PURGE: IPv4, IPv6, IPv4-mapped IPv6, bad configuration.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { compileCidrs, LOOPBACK_CIDRS } from '../../src/gateway/cidr.js';

describe('compileCidrs', () => {
  it('allows loopback by default, including ::ffff:127.0.0.1', () => {
    const allowed = compileCidrs(LOOPBACK_CIDRS);
    for (const a of ['127.0.0.1', '127.9.8.7', '::1', '::ffff:127.0.0.1']) assert.equal(allowed(a), true, a);
    for (const a of ['10.0.0.1', '::2', '::ffff:10.0.0.1', 'garbage', undefined]) assert.equal(allowed(a), false, String(a));
  });

  it('matches IPv4 and IPv6 prefixes', () => {
    const allowed = compileCidrs(['10.1.0.0/16', 'fd00::/8', '192.0.2.7']);
    assert.equal(allowed('10.1.200.3'), true);
    assert.equal(allowed('10.2.0.1'), false);
    assert.equal(allowed('::ffff:10.1.0.9'), true);
    assert.equal(allowed('fd12:3456::1'), true);
    assert.equal(allowed('fe80::1'), false);
    assert.equal(allowed('192.0.2.7'), true);
    assert.equal(allowed('192.0.2.8'), false);
  });

  it('rejects bad entries at configuration time', () => {
    assert.throws(() => compileCidrs(['10.0.0.0/33']), /prefix/);
    assert.throws(() => compileCidrs(['not-an-ip/8']), /not an IP/);
  });
});
