import { BlockList, isIP } from 'node:net';

/**
 * Private, loopback, link-local and other non-public ranges (server-side request forgery).
 * IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are matched against the IPv4 ranges by BlockList.
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/**
 * Whether an IP address (v4, v6 or IPv4-mapped v6) is loopback, private, link-local or otherwise
 * not on the public internet. Delivery checks every address a webhook host resolves to.
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (!family) return false;
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return `The ${what} must not point at localhost.`;
  if (isNonPublicAddress(host)) return `The ${what} must not point at a private, loopback or link-local address.`;
  return null;
}
