import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may not point (unless WEBHOOK_ALLOW_PRIVATE): this host and its network,
 * private and link-local ranges, unspecified, multicast and reserved addresses. Node's BlockList
 * matches IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) against the IPv4 rules.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", and the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still private)
  ['ff00::', 8], // multicast
  ['64:ff9b:1::', 48], // local-use NAT64
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6) is one a webhook may be sent to. */
export function isPublicAddress(address: string): boolean {
  const unbracketed = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(unbracketed);
  if (family === 0) return false;
  return !BLOCKED.check(unbracketed, family === 4 ? 'ipv4' : 'ipv6');
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export class BlockedAddressError extends Error {}

/**
 * Every address of a URL's host (an IP literal is itself), refused when any is not public
 * (unless `allowPrivate`): a name that resolves to both cannot be trusted to reach the public one.
 */
export async function resolvePublic(url: URL, allowPrivate: boolean): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  const addresses = family !== 0 ? [{ address: host, family }] : await dnsLookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new BlockedAddressError(`${host} does not resolve`);
  if (!allowPrivate) {
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked) throw new BlockedAddressError(`${host} resolves to ${blocked.address}, a loopback, private, link-local or otherwise non-public address`);
  }
  return addresses;
}
