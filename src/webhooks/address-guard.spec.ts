import { describe, expect, it } from 'vitest';
import { isPublicAddress, resolvePublic } from './address-guard.js';

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
