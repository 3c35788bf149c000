import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may not point (unless WEBHOOK_ALLOW_PRIVATE): this host and its network,
 * private and link-local ranges, unspecified, multicast and reserved addresses. An IPv6 address
 * that carries an IPv4 address (embeddedIPv4) is judged by that address too.
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

const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address carries, for the forms that reach an IPv4 host through it:
 * IPv4-compatible `::a.b.c.d`, IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`
 * (RFC 6145), NAT64 `64:ff9b::a.b.c.d` (RFC 6052), 6to4 `2002:AABB:CCDD::` (RFC 3056) and Teredo
 * `2001:0:SSSS:SSSS::CCCC:CCCC` (RFC 4380: the server's address, and the client's with every bit
 * flipped).
 */
export function embeddedIPv4(address: string): string[] {
  let words: number[];
  try {
    words = ipaddr.IPv6.parse(address).parts;
  } catch {
    return [];
  }
  const zeros = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  const last = ipv4(words[6], words[7]);
  if (zeros(0, 6)) return [last];
  if (zeros(0, 5) && words[5] === 0xffff) return [last];
  if (zeros(0, 4) && words[4] === 0xffff && words[5] === 0) return [last];
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return [last];
  if (words[0] === 0x2002) return [ipv4(words[1], words[2])];
  if (words[0] === 0x2001 && words[1] === 0) return [ipv4(words[2], words[3]), ipv4(words[6] ^ 0xffff, words[7] ^ 0xffff)];
  return [];
}

/** Whether an IP address (v4 or v6) is one a webhook may be sent to. */
export function isPublicAddress(address: string): boolean {
  const unbracketed = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(unbracketed);
  if (family === 0) return false;
  if (family === 4) return !BLOCKED.check(unbracketed, 'ipv4');
  if (BLOCKED.check(unbracketed, 'ipv6')) return false;
  return embeddedIPv4(unbracketed).every((embedded) => !BLOCKED.check(embedded, 'ipv4'));
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
