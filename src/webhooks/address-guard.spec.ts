import { describe, expect, it } from 'vitest';
import { embeddedIPv4, isPublicAddress, resolvePublic } from './address-guard.js';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255', '100.64.0.1',
  ])('refuses the IPv4 address %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'febf::1', 'ff02::1', '[::1]'])('refuses the IPv6 address %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:192.168.0.1', '::ffff:a9fe:a9fe'])('refuses the IPv4-mapped IPv6 address %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    // IPv4-compatible (deprecated, still routed by some stacks)
    '::127.0.0.1', '::7f00:1', '::10.0.0.1', '::192.168.1.1', '::169.254.169.254',
    // IPv4-translated (RFC 6145)
    '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:10.1.2.3', '::ffff:0:a9fe:a9fe',
    // NAT64, well-known prefix (RFC 6052) and local-use prefix (RFC 8215)
    '64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b::192.168.0.1', '64:ff9b::169.254.169.254', '64:ff9b:1::8.8.8.8',
    // 6to4 (RFC 3056): the IPv4 address in bits 16-48
    '2002:7f00:1::', '2002:7f00:1::1', '2002:a00:1::1', '2002:c0a8:101::', '2002:a9fe:a9fe::1',
    // Teredo (RFC 4380): the server's IPv4 in bits 32-64, the client's inverted in the last 32
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // client 127.0.0.1
    '2001:0:4136:e378:8000:63bf:f5ff:fffe', // client 10.0.0.1
    '2001:0:4136:e378:8000:63bf:3f57:fefe', // client 192.168.1.1
    '2001:0:4136:e378:8000:63bf:5601:5601', // client 169.254.169.254
    '2001:0:a00:1:8000:63bf:f7f7:f7f7', // server 10.0.0.1
    '[::127.0.0.1]', '[2002:7f00:1::]',
  ])('refuses the IPv6 address %s, which carries a non-public IPv4 address', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('reads the IPv4 address out of each form', () => {
    expect(embeddedIPv4('::127.0.0.1')).toEqual(['127.0.0.1']);
    expect(embeddedIPv4('::ffff:0:127.0.0.1')).toEqual(['127.0.0.1']);
    expect(embeddedIPv4('::ffff:a9fe:a9fe')).toEqual(['169.254.169.254']);
    expect(embeddedIPv4('64:ff9b::c0a8:101')).toEqual(['192.168.1.1']);
    expect(embeddedIPv4('2002:7f00:1::')).toEqual(['127.0.0.1']);
    expect(embeddedIPv4('2001:0:4136:e378:8000:63bf:3f57:fefe')).toEqual(['65.54.227.120', '192.168.1.1']);
    expect(embeddedIPv4('2606:4700:4700::1111')).toEqual([]);
    expect(embeddedIPv4('not an address')).toEqual([]);
  });

  it.each([
    '::8.8.8.8', '::ffff:0:8.8.8.8', '64:ff9b::8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('accepts the IPv6 address %s, which carries a public IPv4 address', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.15.255.255', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '2001:db9::1', '::ffff:8.8.8.8', '::ffff:808:808'])(
    'accepts the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('refuses what is not an address', () => {
    expect(isPublicAddress('example.com')).toBe(false);
    expect(isPublicAddress('')).toBe(false);
  });
});

describe('resolvePublic', () => {
  it('refuses IP literals and names of non-public addresses, unless private ones are allowed', async () => {
    await expect(resolvePublic(new URL('http://127.0.0.1:9/hook'), false)).rejects.toThrow(/127\.0\.0\.1/);
    await expect(resolvePublic(new URL('http://[::1]/hook'), false)).rejects.toThrow(/::1/);
    await expect(resolvePublic(new URL('http://[::ffff:169.254.169.254]/'), false)).rejects.toThrow(/non-public/);
    await expect(resolvePublic(new URL('http://localhost/hook'), false)).rejects.toThrow(/localhost resolves to/);
    await expect(resolvePublic(new URL('http://127.0.0.1/hook'), true)).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('accepts a public IP literal', async () => {
    await expect(resolvePublic(new URL('https://8.8.8.8/hook'), false)).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});
