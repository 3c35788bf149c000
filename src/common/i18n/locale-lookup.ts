import Negotiator from 'negotiator';

/** The languages settings as the lookup reads them (SUPPORTED_LOCALES, DEFAULT_LOCALE, LOCALE_FALLBACKS). */
export interface LocaleSettings {
  supportedLocales: readonly string[];
  defaultLocale: string;
  localeFallbacks: readonly (readonly [string, string])[];
}

/** Ranges of an Accept-Language header looked at: a longer header is hostile or broken, and its tail is ignored. */
const MAX_RANGES = 32;

/**
 * RFC 4647 §3.4 lookup of an `Accept-Language` header (RFC 9110 §12.5.4) against the supported
 * locales: the ranges by quality (then order), each truncated from the right (`de-CH-1996`,
 * `de-CH`, `de`; a single-letter subtag left at the end goes with the one after it) until it
 * names a supported locale, matched regardless of case. Null when nothing matches: no header, an
 * empty or malformed one, `*` alone (the wildcard names no language of its own in a lookup).
 */
export function lookupLocale(header: string | undefined, supported: readonly string[]): string | null {
  if (!header) return null;
  const byLowerCase = new Map(supported.map((tag) => [tag.toLowerCase(), tag]));
  const ranges = new Negotiator({ headers: { 'accept-language': header } }).languages();
  for (const range of ranges.slice(0, MAX_RANGES)) {
    if (range === '*') continue;
    const subtags = range.toLowerCase().split('-');
    while (subtags.length > 0) {
      const found = byLowerCase.get(subtags.join('-'));
      if (found) return found;
      subtags.pop();
      if (subtags.length > 0 && subtags[subtags.length - 1].length === 1) subtags.pop();
    }
  }
  return null;
}

/**
 * The locales to show a translation group in, best first: the chosen one, where LOCALE_FALLBACKS
 * leads from it, then DEFAULT_LOCALE (CONTRACT §15); each once.
 */
export function localeChain(chosen: string, settings: LocaleSettings): string[] {
  const next = new Map(settings.localeFallbacks.map(([from, to]) => [from, to]));
  const chain: string[] = [];
  for (let at: string | undefined = chosen; at !== undefined && !chain.includes(at); at = next.get(at)) chain.push(at);
  if (!chain.includes(settings.defaultLocale)) chain.push(settings.defaultLocale);
  return chain;
}

/**
 * The locale a list is shown in: `?locale=` when given (the caller checks it is supported), else
 * the lookup of Accept-Language, else DEFAULT_LOCALE.
 */
export function chooseLocale(given: string | undefined, acceptLanguage: string | undefined, settings: LocaleSettings): string {
  return given ?? lookupLocale(acceptLanguage, settings.supportedLocales) ?? settings.defaultLocale;
}

/** The language a list of posts is shown in (CONTRACT §15). */
export interface ListLocale {
  /** The chosen locale, or `*`: every translation, each its own item. */
  locale: string;
  /** The locales each translation group is shown in, best first (localeChain); every supported one for `*`. */
  chain: readonly string[];
  /** One post per translation group (false for `*`). */
  perGroup: boolean;
}

/**
 * The list's language: `?locale=` (matched regardless of case; `*` for every translation), else
 * Accept-Language, else DEFAULT_LOCALE, with its chain. Null when `given` is not a supported
 * locale (the caller answers 400 naming `locale`).
 */
export function listLocale(given: string | undefined, acceptLanguage: string | undefined, settings: LocaleSettings): ListLocale | null {
  if (given === '*') return { locale: '*', chain: settings.supportedLocales, perGroup: false };
  let locale: string | undefined;
  if (given !== undefined) {
    const lower = given.toLowerCase();
    locale = settings.supportedLocales.find((tag) => tag.toLowerCase() === lower);
    if (locale === undefined) return null;
  }
  const chosen = chooseLocale(locale, acceptLanguage, settings);
  return { locale: chosen, chain: localeChain(chosen, settings), perGroup: true };
}
