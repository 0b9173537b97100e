import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { amqpUriProblem } from '../../src/events/amqp-uri';
import { publicOnlyLookup } from '../../src/events/webhook-sender';
import { nonPublicRange, webhookUrlProblem } from '../../src/events/webhook-url';

/**
 * Every special-purpose range of the IANA IPv4 and IPv6 special-purpose address registries (and
 * multicast, and IPv6 outside 2000::/3), each with an address inside it, the name the refusal
 * gives, and the nearest address outside it that is public. Ranges below 2000::/3 have no public
 * neighbour closer than 2000::1, nor 240.0.0.0/4 and broadcast closer than 223.255.255.254.
 */
const RANGES: { cidr: string; inside: string; range: string; neighbour: string }[] = [
  { cidr: '0.0.0.0/8', inside: '0.1.2.3', range: 'unspecified', neighbour: '1.0.0.1' },
  { cidr: '10.0.0.0/8', inside: '10.20.30.40', range: 'private', neighbour: '11.0.0.1' },
  { cidr: '100.64.0.0/10', inside: '100.100.1.1', range: 'carrierGradeNat', neighbour: '100.128.0.1' },
  { cidr: '127.0.0.0/8', inside: '127.0.0.1', range: 'loopback', neighbour: '128.0.0.1' },
  { cidr: '169.254.0.0/16', inside: '169.254.169.254', range: 'linkLocal', neighbour: '169.255.0.1' },
  { cidr: '172.16.0.0/12', inside: '172.31.255.254', range: 'private', neighbour: '172.32.0.1' },
  { cidr: '192.0.0.0/24', inside: '192.0.0.8', range: 'reserved', neighbour: '192.0.1.1' },
  { cidr: '192.0.2.0/24', inside: '192.0.2.10', range: 'reserved', neighbour: '192.0.3.1' },
  { cidr: '192.31.196.0/24', inside: '192.31.196.1', range: 'as112', neighbour: '192.31.197.1' },
  { cidr: '192.52.193.0/24', inside: '192.52.193.1', range: 'amt', neighbour: '192.52.194.1' },
  { cidr: '192.88.99.0/24', inside: '192.88.99.1', range: 'reserved', neighbour: '192.88.98.1' },
  { cidr: '192.168.0.0/16', inside: '192.168.1.1', range: 'private', neighbour: '192.169.0.1' },
  { cidr: '192.175.48.0/24', inside: '192.175.48.1', range: 'as112', neighbour: '192.175.49.1' },
  { cidr: '198.18.0.0/15', inside: '198.19.255.254', range: 'reserved', neighbour: '198.20.0.1' },
  { cidr: '198.51.100.0/24', inside: '198.51.100.7', range: 'reserved', neighbour: '198.51.101.1' },
  { cidr: '203.0.113.0/24', inside: '203.0.113.5', range: 'reserved', neighbour: '203.0.114.1' },
  { cidr: '224.0.0.0/4', inside: '239.255.255.250', range: 'multicast', neighbour: '223.255.255.254' },
  { cidr: '240.0.0.0/4', inside: '240.0.0.1', range: 'reserved', neighbour: '223.255.255.254' },
  { cidr: '255.255.255.255/32', inside: '255.255.255.255', range: 'broadcast', neighbour: '223.255.255.254' },

  { cidr: '::/128', inside: '::', range: 'unspecified', neighbour: '2000::1' },
  { cidr: '::1/128', inside: '::1', range: 'loopback', neighbour: '2000::1' },
  // IPv4-compatible (::127.0.0.1 written as URL and DNS answers normalise it).
  { cidr: '::/96', inside: '::7f00:1', range: 'reservedByIetf', neighbour: '2000::1' },
  { cidr: '::ffff:0:0/96', inside: '::ffff:127.0.0.1', range: 'ipv4Mapped', neighbour: '2000::1' },
  { cidr: '::ffff:0:0/96', inside: '::ffff:8.8.8.8', range: 'ipv4Mapped', neighbour: '2000::1' },
  { cidr: '::ffff:0:0:0/96', inside: '::ffff:0:a00:1', range: 'rfc6145', neighbour: '2000::1' },
  { cidr: '64:ff9b::/96', inside: '64:ff9b::10.0.0.1', range: 'rfc6052', neighbour: '2000::1' },
  { cidr: '64:ff9b::/96', inside: '64:ff9b::8.8.8.8', range: 'rfc6052', neighbour: '2000::1' },
  { cidr: '64:ff9b:1::/48', inside: '64:ff9b:1::a00:1', range: 'rfc6052', neighbour: '2000::1' },
  { cidr: '100::/64', inside: '100::1', range: 'discard', neighbour: '2000::1' },
  { cidr: '100:0:0:1::/64', inside: '100:0:0:1::1', range: 'reservedByIetf', neighbour: '2000::1' },
  { cidr: '4000::/2', inside: '4000::1', range: 'reservedByIetf', neighbour: '3fff:ffff::1' },
  { cidr: '2001::/32', inside: '2001:0:4136:e378:8000:63bf:3fff:fdd2', range: 'teredo', neighbour: '2001:200::1' },
  { cidr: '2001::/23', inside: '2001:1::1', range: 'reserved', neighbour: '2001:200::1' },
  { cidr: '2001:2::/48', inside: '2001:2::1', range: 'benchmarking', neighbour: '2001:200::1' },
  { cidr: '2001:3::/32', inside: '2001:3::1', range: 'amt', neighbour: '2001:200::1' },
  { cidr: '2001:4:112::/48', inside: '2001:4:112::1', range: 'as112v6', neighbour: '2001:200::1' },
  { cidr: '2001:10::/28', inside: '2001:10::1', range: 'deprecatedOrchid', neighbour: '2001:200::1' },
  { cidr: '2001:20::/28', inside: '2001:20::1', range: 'orchid2', neighbour: '2001:200::1' },
  { cidr: '2001:30::/28', inside: '2001:30::1', range: 'droneRemoteIdProtocolEntityTags', neighbour: '2001:200::1' },
  { cidr: '2001:db8::/32', inside: '2001:db8::1', range: 'reserved', neighbour: '2001:db9::1' },
  { cidr: '2002::/16', inside: '2002:7f00:1::1', range: '6to4', neighbour: '2003::1' },
  { cidr: '2002::/16', inside: '2002:808:808::1', range: '6to4', neighbour: '2001:4860:4860::8888' },
  { cidr: '2620:4f:8000::/48', inside: '2620:4f:8000::1', range: 'as112v6', neighbour: '2620:4f:8001::1' },
  { cidr: '3fff::/20', inside: '3fff::1', range: 'reserved', neighbour: '3fff:1000::1' },
  { cidr: '5f00::/16', inside: '5f00::1', range: 'segmentRouting', neighbour: '3fff:ffff::1' },
  { cidr: 'fc00::/7', inside: 'fd12:3456::1', range: 'uniqueLocal', neighbour: '3fff:ffff::1' },
  { cidr: 'fe80::/10', inside: 'fe80::1', range: 'linkLocal', neighbour: '3fff:ffff::1' },
  { cidr: 'fec0::/10', inside: 'fec0::1', range: 'deprecatedSiteLocal', neighbour: '3fff:ffff::1' },
  { cidr: 'ff00::/8', inside: 'ff02::1', range: 'multicast', neighbour: '3fff:ffff::1' },
];

const inUrl = (address: string) => (address.includes(':') ? `[${address}]` : address);

/** Whether publicOnlyLookup lets a host name resolving to `address` be connected to. */
function lookupRefuses(address: string): Promise<string | null> {
  const resolve = ((_host: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) =>
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 }])) as unknown as typeof import('node:dns').lookup;
  return new Promise((done) => publicOnlyLookup(resolve)('hooks.example.com', { all: true }, (error) => done(error ? error.message : null)));
}

describe.each(RANGES)('$cidr ($range)', ({ cidr, inside, range, neighbour }) => {
  test(`${inside} is inside and ${neighbour} outside`, () => {
    const network = ipaddr.parseCIDR(cidr);
    expect(ipaddr.parse(inside).match(network)).toBe(true);
    const outside = ipaddr.parse(neighbour);
    expect(outside.kind() === network[0].kind() && outside.match(network)).toBe(false);
  });

  test(`${inside} is refused as a webhook URL, an event-destination URI and a resolved address`, async () => {
    expect(nonPublicRange(inside)).toBe(range);
    expect(webhookUrlProblem(`https://${inUrl(inside)}/hook`, false)).toMatch(/non-public address/);
    expect(amqpUriProblem(`amqps://user:secret@${inUrl(inside)}:5671/vhost`, false)).toMatch(/non-public address/);
    expect(await lookupRefuses(inside)).toBe(`hooks.example.com resolves to non-public address ${inside} (${range})`);
  });

  test(`${neighbour} is accepted`, async () => {
    expect(nonPublicRange(neighbour)).toBeNull();
    expect(webhookUrlProblem(`https://${inUrl(neighbour)}/hook`, false)).toBeNull();
    expect(amqpUriProblem(`amqps://user:secret@${inUrl(neighbour)}:5671/vhost`, false)).toBeNull();
    expect(await lookupRefuses(neighbour)).toBeNull();
  });
});

test('IPv4 written the short ways getaddrinfo reads is the address it names', () => {
  // http(s) URLs arrive normalised (new URL gives 127.0.0.1); amqp: ones arrive as written.
  for (const host of ['127.1', '0x7f.1', '2130706433', '017700000001', '10.1', '0']) {
    expect(amqpUriProblem(`amqp://${host}:5672/`, false)).toMatch(/non-public address/);
  }
  expect(webhookUrlProblem('http://0x7f.1/hook', false)).toMatch(/non-public address/);
  // The IPv4-compatible form as typed: ipaddr.js reads it as IPv4-mapped; refused either way.
  expect(nonPublicRange('::127.0.0.1')).not.toBeNull();
  expect(nonPublicRange('hooks.example.com')).toBeNull();
  // Development and tests (allowPrivate) reach private addresses.
  expect(webhookUrlProblem('http://10.0.0.1/hook', true)).toBeNull();
  expect(amqpUriProblem('amqp://10.0.0.1', true)).toBeNull();
});
