import ipaddr from 'ipaddr.js';

/**
 * IANA allocates IPv6 global unicast space only from 2000::/3 (RFC 4291 §2.4 and the IANA "IPv6
 * Address Space" registry: everything else is reserved by the IETF or named by ipaddr.js's own
 * ranges). ipaddr.js's `range()` calls an address outside its table `unicast`, which would let
 * through what its table does not name: the deprecated IPv4-compatible ::/96 (`::7f00:1` is
 * 127.0.0.1 on stacks that still route it; ipaddr.js knows only ::/128), the dummy prefix
 * 100:0:0:1::/64 (RFC 9780, newer than its table) and whatever the IETF sets aside next outside
 * 2000::/3. So an IPv6 address must also lie in 2000::/3.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Why an IP address is not on the public internet: the name of its special-purpose range
 * (ipaddr.js's `range()` names, from the IANA special-purpose registries: private, loopback,
 * linkLocal, carrierGradeNat, reserved (documentation, benchmarking, 192.0.0.0/24, 240/4),
 * multicast, broadcast, uniqueLocal, deprecatedSiteLocal, discard, orchid2, as112…), or null for a
 * public unicast address or a string that is not an IP address (a host name). Webhook URLs and
 * event-destination URIs are checked with it when stored and sent, and so is every address their
 * host names resolve to at delivery (publicOnlyLookup).
 *
 * Every IPv6 range that carries an IPv4 address is refused whatever that IPv4 address is:
 * IPv4-mapped, rfc6145 (translated), rfc6052 (NAT64, 64:ff9b::/96 and 64:ff9b:1::/48), 6to4
 * (2002::/16) and Teredo (2001::/32). Sent there, a packet reaches the embedded IPv4 host through
 * a translator or relay, possibly one inside the deployment's network (2002:7f00:1:: is 127.0.0.1
 * behind a 6to4 gateway); a public receiver is reachable on its own address instead. (Not so
 * behind DNS64 on an IPv6-only network, where IPv4-only receivers resolve into 64:ff9b::/96: such
 * a deployment cannot reach them with private targets refused.)
 *
 * IPv4 written the short ways inet_aton still reads (`127.1`, `0x7f.1`, `2130706433`) is parsed
 * as the address it names: getaddrinfo would connect there.
 */
export function nonPublicRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'reservedByIetf';
  return null;
}

/**
 * Why a webhook URL is refused, or null when it is fine. Always: http(s) only, no credentials
 * in the URL. Unless `allowPrivate` (development and tests): no localhost names and no literal
 * non-public IP addresses. Names resolving to private addresses must also be refused at delivery
 * time (DNS can change after this check).
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Not a valid URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The URL must use http or https.';
  if (url.username || url.password) return 'The URL must not carry credentials; use custom headers instead.';
  return allowPrivate ? null : nonPublicHostProblem(url.hostname, 'URL');
}

/**
 * Why an outbound host name is refused (localhost names, literal non-public IP addresses), or
 * null. `what` names the thing in the message ("URL", "URI"). Shared by webhook URLs and event
 * destination URIs.
 */
export function nonPublicHostProblem(hostname: string, what: string): string | null {
  // A trailing dot (fully-qualified "localhost.") names the same host.
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return `The ${what} must not point at localhost.`;
  if (nonPublicRange(host)) return `The ${what} must not point at a private, loopback, link-local or other non-public address.`;
  return null;
}
