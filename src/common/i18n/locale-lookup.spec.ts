import { describe, expect, it } from 'vitest';
import { chooseLocale, listLocale, localeChain, lookupLocale } from './locale-lookup.js';

const SUPPORTED = ['en', 'de', 'de-CH', 'fr'];
const SETTINGS = { supportedLocales: SUPPORTED, defaultLocale: 'en', localeFallbacks: [['de-CH', 'de']] as [string, string][] };

describe('lookupLocale (RFC 4647 §3.4 lookup)', () => {
  it.each([
    ['de-CH', 'de-CH'],
    ['de-ch', 'de-CH'],
    ['de-CH-1996', 'de-CH'],
    ['de-AT', 'de'],
    ['fr;q=0.9, en;q=0.8', 'fr'],
    ['en;q=0.8, fr;q=0.9', 'fr'],
    ['it, fr;q=0.5', 'fr'],
    ['zh-Hant-CN-x-private, de;q=0.1', 'de'],
    ['*, fr;q=0.5', 'fr'],
    ['FR-ca', 'fr'],
  ])('%j → %s', (header, expected) => {
    expect(lookupLocale(header, SUPPORTED)).toBe(expected);
  });

  it.each([undefined, '', '*', 'it', 'xx;;;q=bad,,', 'en;q=0', '\u0000\u0001', 'a'.repeat(5000), 'd'])('%j matches nothing', (header) => {
    expect(lookupLocale(header, SUPPORTED)).toBeNull();
  });

  it('looks at the first 32 ranges only', () => {
    const many = [...Array.from({ length: 40 }, (_, index) => `x${index}`), 'fr'].join(', ');
    expect(lookupLocale(many, SUPPORTED)).toBeNull();
    expect(lookupLocale(['it', 'fr'].join(', '), SUPPORTED)).toBe('fr');
  });
});

describe('localeChain', () => {
  it('follows LOCALE_FALLBACKS, then DEFAULT_LOCALE, each once', () => {
    expect(localeChain('de-CH', SETTINGS)).toEqual(['de-CH', 'de', 'en']);
    expect(localeChain('de', SETTINGS)).toEqual(['de', 'en']);
    expect(localeChain('en', SETTINGS)).toEqual(['en']);
    expect(localeChain('de-CH', { ...SETTINGS, localeFallbacks: [['de-CH', 'de'], ['de', 'fr']] })).toEqual(['de-CH', 'de', 'fr', 'en']);
  });
});

describe('chooseLocale', () => {
  it('takes ?locale= first, then Accept-Language, then DEFAULT_LOCALE', () => {
    expect(chooseLocale('fr', 'de', SETTINGS)).toBe('fr');
    expect(chooseLocale(undefined, 'de-CH, en;q=0.5', SETTINGS)).toBe('de-CH');
    expect(chooseLocale(undefined, '*', SETTINGS)).toBe('en');
    expect(chooseLocale(undefined, undefined, { ...SETTINGS, defaultLocale: 'de' })).toBe('de');
  });
});

describe('listLocale', () => {
  it('?locale= wins over Accept-Language, in any case; its chain follows LOCALE_FALLBACKS then DEFAULT_LOCALE', () => {
    expect(listLocale('DE-ch', 'fr', SETTINGS)).toEqual({ locale: 'de-CH', chain: ['de-CH', 'de', 'en'], perGroup: true });
    expect(listLocale(undefined, 'fr;q=0.9, en;q=0.8', SETTINGS)).toEqual({ locale: 'fr', chain: ['fr', 'en'], perGroup: true });
  });

  it('a missing, wildcard or malformed header is DEFAULT_LOCALE', () => {
    for (const header of [undefined, '', '*', ';;;', 'q=1']) expect(listLocale(undefined, header, SETTINGS)).toEqual({ locale: 'en', chain: ['en'], perGroup: true });
  });

  it('* lists every translation; an unsupported locale is null', () => {
    expect(listLocale('*', 'de', SETTINGS)).toEqual({ locale: '*', chain: SUPPORTED, perGroup: false });
    for (const given of ['it', '', 'de-AT', 'en ']) expect(listLocale(given, undefined, SETTINGS)).toBeNull();
  });
});
