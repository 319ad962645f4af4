import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { addressAllowed, blockedReason, isMetadataHostname, normalizeHostname, parseAllowList, parseCidr } from '#net/address-guard.js';

// Moved from http-node.test.ts with the guard (lib/net/address-guard.ts); the cases are unchanged.
describe('address classifier', () => {
  const cases: Array<[string, string | undefined]> = [
    ['8.8.8.8', undefined],
    ['1.1.1.1', undefined],
    ['172.32.0.1', undefined],
    ['100.128.0.1', undefined],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.100.100.200', 'shared (CGNAT)'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['2606:4700:4700::1111', undefined],
    ['::ffff:8.8.8.8', undefined],
    ['64:ff9b::808:808', undefined],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['example.com', 'not an IP address'],
  ];
  for (const [address, reason] of cases) {
    test(`${address} → ${reason ?? 'allowed'}`, () => assert.equal(blockedReason(address), reason));
  }
});

describe('allow-list', () => {
  test('entries split into hostnames (normalized) and CIDRs; a bare address is a /32 or /128; a bad prefix is a hostname', () => {
    const list = parseAllowList(' Api.Internal. , 10.0.0.0/8,127.0.0.1, fd00::/8, [::1], bad/99, 10.0.0.0/33, 10.0.0.0/x,,');
    assert.deepEqual([...list.allowedHostnames], ['api.internal', '::1', 'bad/99', '10.0.0.0/33', '10.0.0.0/x']);
    assert.deepEqual(
      list.allowedCidrs.map((c) => [c.family, c.bits]),
      [
        [4, 8],
        [4, 32],
        [6, 8],
      ],
    );
    assert.deepEqual(parseAllowList(''), { allowedHostnames: new Set(), allowedCidrs: [] });
  });

  test('CIDR matching, including IPv6 forms that embed an allowed IPv4 address', () => {
    const cidrs = parseAllowList('10.0.0.0/8, 127.0.0.1, fd00::/8').allowedCidrs;
    for (const address of ['10.1.2.3', '10.255.255.255', '127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', '2002:a00:1::', 'fd12::1']) {
      assert.ok(addressAllowed(address, cidrs), address);
    }
    for (const address of ['11.0.0.1', '127.0.0.2', '169.254.169.254', '::1', 'fc00::1', 'example.com']) {
      assert.ok(!addressAllowed(address, cidrs), address);
    }
    assert.ok(!addressAllowed('10.0.0.1', []));
  });

  test('parseCidr: prefixes within the family; the base is masked', () => {
    assert.deepEqual(parseCidr('10.1.2.3/8'), { family: 4, base: 10n << 24n, bits: 8 });
    assert.deepEqual(parseCidr('0.0.0.0/0'), { family: 4, base: 0n, bits: 0 });
    assert.equal(parseCidr('::/128')?.bits, 128);
    for (const text of ['10.0.0.0/33', '::/129', '10.0.0.0/-1', '10.0.0.0/1.5', '10.0.0.0/', 'example.com/8', '']) {
      assert.equal(parseCidr(text), undefined, text);
    }
  });

  test('hostnames: normalized as a URL host is compared; cloud metadata names', () => {
    assert.equal(normalizeHostname('Metadata.Google.Internal.'), 'metadata.google.internal');
    assert.equal(normalizeHostname('[::1]'), '::1');
    for (const host of ['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']) assert.ok(isMetadataHostname(host), host);
    assert.ok(!isMetadataHostname('example.com'));
  });
});
