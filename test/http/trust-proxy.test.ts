/**
 * @module test/http/trust-proxy
 * `compileTrust`: the remembered answers of a compiled trust list are proxy-addr's own, for every
 * address asked about, including past the memo's bound (its oldest answers forgotten, never wrong).
 */
import assert from 'node:assert/strict';
import proxyaddr from 'proxy-addr';
import { describe, it } from '../helpers/node-test.js';
import { compileTrust } from '../../src/http/trust-proxy.js';

describe('compileTrust', { timeout: 30_000 }, () => {
  it('answers as proxy-addr does, asked once or again, for addresses in and out of the list and garbage', () => {
    const list = ['loopback', '10.0.0.0/8', 'fd00::/8'];
    const trust = compileTrust(list.join(','))!;
    const reference = proxyaddr.compile(list);
    const addresses = ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', '11.1.2.3', 'fd00::1', 'fe80::1', '', 'not-an-ip', '300.1.1.1'];
    for (let round = 0; round < 3; round++) {
      for (const addr of addresses) assert.equal(trust(addr, 0), reference(addr, 0), `${addr} round ${round}`);
    }
  });

  it('stays right past its bound of remembered addresses', () => {
    const trust = compileTrust('10.0.0.0/16')!;
    for (let i = 0; i < 3000; i++) {
      const addr = `10.${i % 2 === 0 ? 0 : 1}.${(i >> 8) & 255}.${i & 255}`;
      assert.equal(trust(addr, 0), i % 2 === 0, addr);
    }
    assert.equal(trust('10.0.0.0', 0), true);
    assert.equal(trust('10.1.0.1', 0), false);
  });

  it('keeps the hop count of a numeric setting (not remembered by address)', () => {
    const trust = compileTrust(2)!;
    assert.equal(trust('1.2.3.4', 0), true);
    assert.equal(trust('1.2.3.4', 1), true);
    assert.equal(trust('1.2.3.4', 2), false);
  });
});
