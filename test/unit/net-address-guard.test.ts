import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { addressAllowed, blockedReason, isMetadataHostname, normalizeHostname, parseAllowList, parseCidr } from '#net/address-guard.js';

// One case or more per special range; the ranges are ipaddr.js's (lib/net/address-guard.ts).
describe('address classifier', () => {
  const cases: Array<[range: string, address: string, reason: string | undefined]> = [
    ['public IPv4', '8.8.8.8', undefined],
    ['public IPv4', '1.1.1.1', undefined],
    ['public IPv4 beside 172.16/12', '172.32.0.1', undefined],
    ['public IPv4 beside 100.64/10', '100.128.0.1', undefined],
    ['public IPv6', '2606:4700:4700::1111', undefined],
    ['public IPv6 in 2001::/16, outside Teredo', '2001:4860:4860::8888', undefined],
    ['loopback', '127.0.0.1', 'loopback'],
    ['loopback', '127.255.255.254', 'loopback'],
    ['loopback', '::1', 'loopback'],
    ['loopback', '0:0:0:0:0:0:0:1', 'loopback'],
    ['private', '10.1.2.3', 'private'],
    ['private', '172.16.0.1', 'private'],
    ['private', '172.31.255.255', 'private'],
    ['private', '192.168.1.1', 'private'],
    ['link-local (the metadata address)', '169.254.169.254', 'link-local'],
    ['link-local', '169.254.0.1', 'link-local'],
    ['link-local', 'fe80::1', 'link-local'],
    ['link-local with a zone', 'fe80::1%eth0', 'link-local'],
    ['link-local with a zone ipaddr.js would not parse', 'fe80::1%en-0.1', 'link-local'],
    ['unique local', 'fc00::1', 'unique local'],
    ['unique local (the IPv6 metadata address)', 'fd00:ec2::254', 'unique local'],
    ['site-local', 'fec0::1', 'site-local'],
    ['multicast', '224.0.0.1', 'multicast'],
    ['multicast', 'ff02::1', 'multicast'],
    ['unspecified', '0.0.0.0', 'unspecified'],
    ['unspecified', '0.1.2.3', 'unspecified'],
    ['unspecified', '::', 'unspecified'],
    ['broadcast', '255.255.255.255', 'broadcast'],
    ['reserved', '240.0.0.1', 'reserved'],
    ['reserved (documentation)', '192.0.2.1', 'reserved'],
    ['reserved (benchmarking)', '198.18.0.1', 'reserved'],
    ['reserved (documentation)', '2001:db8::1', 'reserved'],
    ['discard-only', '100::1', 'discard-only'],
    ['carrier-grade NAT', '100.64.0.1', 'carrier-grade NAT'],
    ['carrier-grade NAT', '100.100.100.200', 'carrier-grade NAT'],
    ['another special range, by its name', '5f00::1', 'special-purpose (segmentRouting)'],
    ['mapped, public', '::ffff:8.8.8.8', undefined],
    ['mapped', '::ffff:127.0.0.1', 'loopback'],
    ['mapped, hex', '::ffff:7f00:1', 'loopback'],
    ['mapped', '0:0:0:0:0:ffff:10.0.0.1', 'private'],
    ['mapped', '::ffff:169.254.169.254', 'link-local'],
    ['mapped, hex', '::ffff:a9fe:a9fe', 'link-local'],
    ['SIIT', '::ffff:0:7f00:1', 'loopback'],
    ['IPv4-compatible', '::127.0.0.1', 'loopback'],
    ['IPv4-compatible, hex', '::7f00:1', 'loopback'],
    ['IPv4-compatible, hex', '::a00:1', 'private'],
    ['NAT64, public', '64:ff9b::808:808', undefined],
    ['NAT64', '64:ff9b::a9fe:a9fe', 'link-local'],
    ['NAT64', '64:ff9b::127.0.0.1', 'loopback'],
    ['NAT64, local use', '64:ff9b:1::808:808', 'local-use NAT64'],
    ['6to4, public', '2002:808:808::1', undefined],
    ['6to4', '2002:7f00:1::', 'loopback'],
    ['6to4', '2002:c0a8:101::1', 'private'],
    ['6to4', '2002:a9fe:a9fe::', 'link-local'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['Teredo', '2001::1', 'Teredo'],
    ['Teredo, server 127.0.0.1', '2001:0:7f00:1::', 'Teredo'],
    ['not an address', 'example.com', 'not an IP address'],
    ['not an address: IPv4 in a short form', '127.1', 'not an IP address'],
    ['not an address: IPv4 in hex', '0x7f.0.0.1', 'not an IP address'],
  ];
  for (const [range, address, reason] of cases) {
    test(`${range}: ${address} → ${reason ?? 'allowed'}`, () => assert.equal(blockedReason(address), reason));
  }
});

describe('allow-list', () => {
  test('entries split into hostnames (normalized) and CIDRs; a bare address is a /32 or /128; a bad prefix is a hostname', () => {
    const list = parseAllowList(' Api.Internal. , 10.0.0.0/8,127.0.0.1, fd00::/8, [::1], bad/99, 10.0.0.0/33, 10.0.0.0/x,,');
    assert.deepEqual([...list.allowedHostnames], ['api.internal', '::1', 'bad/99', '10.0.0.0/33', '10.0.0.0/x']);
    assert.deepEqual(
      list.allowedCidrs.map((c) => [c.network.kind(), c.bits]),
      [
        ['ipv4', 8],
        ['ipv4', 32],
        ['ipv6', 8],
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

  test('parseCidr: prefixes within the family; a base with host bits matches its whole network', () => {
    const wide = parseCidr('10.1.2.3/8');
    assert.deepEqual([wide?.network.toString(), wide?.bits], ['10.1.2.3', 8]);
    assert.ok(addressAllowed('10.200.0.1', [wide!]));
    assert.equal(parseCidr('0.0.0.0/0')?.bits, 0);
    assert.equal(parseCidr('::/128')?.bits, 128);
    assert.equal(parseCidr('fd00::1')?.bits, 128);
    for (const text of ['10.0.0.0/33', '::/129', '10.0.0.0/-1', '10.0.0.0/1.5', '10.0.0.0/', '10.0.0.0/8/8', 'fe80::1%eth0/64', '10/8', 'example.com/8', '']) {
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
