import { describe, expect, it } from 'vitest';
import { chooseLocale, localeChain, lookupLocale } from './locale-lookup.js';

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
