import { existsSync } from 'node:fs';
import { isIP } from 'node:net';

/**
 * The vocabulary of settings.ts: `setting(env, kind, options)` declares one setting, and a kind
 * (int, bool, oneOf, text, url, list, file, databaseUrl, trustProxy) says how its environment text
 * is read. Texts meant for people (descriptions, `accepts`) may quote with backticks: the README
 * keeps them, `.env.example` and error messages drop them.
 */

/** Why a value was refused: the words after the setting's name, e.g. "must be true or false". */
export class Invalid {
  constructor(
    readonly problem: string,
    /** The part of the value to quote (default: the whole value); never quoted for secrets. */
    readonly got?: string,
  ) {}
}

/** How one kind of value is read from the (trimmed, non-empty) text of its variable. */
export interface Kind<T> {
  /** What the setting accepts, as the docs and the error messages say it. */
  readonly accepts: string;
  parse(text: string): T | Invalid;
}

export interface Setting<T> {
  /** The environment variable. */
  readonly env: string;
  /** The section of `.env.example` and the README table it is listed in. */
  readonly group: string;
  readonly description: string;
  /** For the README's security table: what the setting bounds, and what a client gets past it. */
  readonly limit: string | undefined;
  /** May hold a credential: start-up messages never quote it, `.env.example` leaves it empty. */
  readonly secret: boolean;
  readonly accepts: string;
  /** The default as the docs say it; undefined when there is none. */
  readonly defaultText: string | undefined;
  /** The value a line of `.env.example` shows: the default when it is one plain value, else empty. */
  readonly example: string;
  /** The value for the variable's text (undefined: unset or blank) in production or not. */
  read(text: string | undefined, production: boolean): T | Invalid;
  /** The message naming the setting for a refused value. */
  message(invalid: Invalid, text: string | undefined): string;
}

interface Described {
  group: string;
  description: string;
  /** A limit or bound that protects the service: what it bounds, and what a client gets past it. */
  limit?: string;
  secret?: boolean;
}

/** Defaults are written as the environment would spell them, and read like a value that is set. */
interface WithDefault {
  default: string;
  /** The default when NODE_ENV=production, if it differs. */
  productionDefault?: string;
}

interface Generated {
  /** Makes a fresh value for each start when none is set. */
  generate: () => string;
  /** How the docs name the generated default, e.g. "random per process". */
  generatedText: string;
  requiredInProduction?: boolean;
}

interface WithoutDefault {
  requiredInProduction?: boolean;
  default?: never;
  generate?: never;
}

/** A setting with a default (or a generated value) is never undefined; one without may be. */
export function setting<T>(env: string, kind: Kind<T>, options: Described & WithDefault): Setting<T>;
export function setting<T>(env: string, kind: Kind<T>, options: Described & Generated): Setting<T>;
export function setting<T>(env: string, kind: Kind<T>, options: Described & WithoutDefault): Setting<T | undefined>;
export function setting<T>(
  env: string,
  kind: Kind<T>,
  options: Described & Partial<WithDefault> & Partial<Omit<Generated, 'requiredInProduction'>> & { requiredInProduction?: boolean },
): Setting<T | undefined> {
  const secret = options.secret ?? false;
  const plainDefault = options.default !== undefined && options.productionDefault === undefined;
  let defaultText: string | undefined;
  if (options.generatedText !== undefined) defaultText = options.generatedText;
  else if (options.default === '') defaultText = undefined;
  else if (options.default !== undefined) {
    defaultText = `\`${options.default}\``;
    if (options.productionDefault !== undefined) defaultText += ` (\`${options.productionDefault}\` when \`NODE_ENV=production\`)`;
  }
  if (options.requiredInProduction) defaultText = `${defaultText ?? 'none'}; required in production`;
  return {
    env,
    group: options.group,
    description: options.description,
    limit: options.limit,
    secret,
    accepts: kind.accepts,
    defaultText,
    example: plainDefault && !secret ? (options.default ?? '') : '',
    read(text, production) {
      if (text === undefined) {
        if (production && options.requiredInProduction) return new Invalid('is required when NODE_ENV=production');
        text = (production ? options.productionDefault : undefined) ?? options.default ?? options.generate?.();
        if (text === undefined) return undefined;
      }
      return kind.parse(text);
    },
    message(invalid, text) {
      const quoted = secret || text === undefined ? '' : ` (got "${invalid.got ?? text}")`;
      return `${env} ${plainText(invalid.problem)}${quoted}`;
    },
  };
}

/** Drops the backticks of a text meant for the README, for plain-text places. */
export function plainText(markdown: string): string {
  return markdown.replaceAll('`', '');
}

function refuse<T>(accepts: string, parse: (text: string) => T | undefined): Kind<T> {
  return { accepts, parse: (text) => parse(text) ?? new Invalid(`must be ${accepts}`) };
}

/** A whole number within bounds, multiplied by `times` (e.g. megabytes kept as bytes). */
export function int(min: number, max: number, options: { times?: number } = {}): Kind<number> {
  return refuse(`a whole number from ${min} to ${max}`, (text) =>
    /^-?\d+$/.test(text) && Number(text) >= min && Number(text) <= max ? Number(text) * (options.times ?? 1) : undefined,
  );
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

export function bool(): Kind<boolean> {
  return refuse('`true` or `false`', (text) => {
    if (TRUE.includes(text.toLowerCase())) return true;
    if (FALSE.includes(text.toLowerCase())) return false;
    return undefined;
  });
}

export function oneOf<const V extends readonly string[]>(...values: V): Kind<V[number]> {
  return refuse(`one of ${values.map((value) => `\`${value}\``).join(', ')}`, (text) => values.find((value) => value === text));
}

export interface TextOptions {
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  /** What the pattern accepts, for the docs and messages: "an e-mail address". */
  like?: string;
  lowercase?: boolean;
}

/** Any text, or one of a length or shape. */
export function text(options: TextOptions = {}): Kind<string> {
  const { minLength = 0, maxLength = Infinity, pattern, like, lowercase = false } = options;
  let accepts = like ?? 'any text';
  if (minLength > 0 && maxLength < Infinity) accepts = `${minLength}-${maxLength} characters`;
  else if (minLength > 0) accepts = `at least ${minLength} characters`;
  else if (maxLength < Infinity) accepts = `at most ${maxLength} characters`;
  return refuse(accepts, (value) => {
    if (value.length < minLength || value.length > maxLength || (pattern && !pattern.test(value))) return undefined;
    return lowercase ? value.toLowerCase() : value;
  });
}

/** A URL of one of the given protocols (`'redis:'`), kept as written. */
export function url(...protocols: string[]): Kind<string> {
  return refuse(`a URL starting with ${protocols.map((protocol) => `\`${protocol}//\``).join(' or ')}`, (value) => {
    try {
      return protocols.includes(new URL(value).protocol) ? value : undefined;
    } catch {
      return undefined;
    }
  });
}

/** Comma-separated entries of one shape; blank entries are dropped. Declare it with `default: ''`. */
export function list(entry: RegExp, like: string): Kind<string[]> {
  const accepts = `a comma-separated list of ${like}`;
  return {
    accepts,
    parse(value) {
      const entries = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
      const bad = entries.find((item) => !entry.test(item));
      return bad === undefined ? entries : new Invalid(`must be ${accepts}`, bad);
    },
  };
}

/** The path of a file that exists at start-up. */
export function file(): Kind<string> {
  return refuse('the path of an existing file', (value) => (existsSync(value) ? value : undefined));
}

export interface DatabaseConfig {
  type: 'sqlite' | 'postgres';
  /** SQLite: a file path or ':memory:'. PostgreSQL: the connection URL. */
  url: string;
}

/** `sqlite:<path>` (or `sqlite://<path>`, `sqlite::memory:`) or a `postgres://` URL. */
export function databaseUrl(): Kind<DatabaseConfig> {
  return {
    accepts: '`sqlite:<path>`, `sqlite::memory:` or a `postgres://` URL',
    parse(value) {
      if (value.startsWith('sqlite:')) {
        const path = value.slice('sqlite:'.length).replace(/^\/\//, '');
        if (path === '') return new Invalid('sqlite: needs a path, e.g. sqlite:./data/blog.sqlite or sqlite::memory:');
        return { type: 'sqlite', url: path };
      }
      if (/^postgres(ql)?:\/\//.test(value)) {
        try {
          new URL(value);
        } catch {
          return new Invalid('is not a valid postgres:// URL');
        }
        return { type: 'postgres', url: value };
      }
      return new Invalid('must start with sqlite: or postgres:// (or be unset for the embedded SQLite file)');
    },
  };
}

/** Comma-separated `postgres://` URLs (blank entries dropped). Declare it with `default: ''` and `secret: true`. */
export function postgresUrlList(): Kind<string[]> {
  return {
    accepts: 'a comma-separated list of `postgres://` URLs',
    parse(value) {
      const entries = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
      for (const [index, entry] of entries.entries()) {
        let valid = /^postgres(ql)?:\/\//.test(entry);
        try {
          if (valid) new URL(entry);
        } catch {
          valid = false;
        }
        if (!valid) return new Invalid(`entry ${index + 1} is not a valid postgres:// URL`);
      }
      return entries;
    },
  };
}

/**
 * Which proxy hops may tell the client's address (TRUST_PROXY): none, a number of hops counted
 * from the right of X-Forwarded-For (the entries our own proxies appended), or the proxies'
 * addresses. Entries a client wrote itself, to the left, are never taken.
 */
export type TrustProxySetting = false | number | string[];

/** `false`, `true` (one hop), a number of hops, or a comma-separated list of addresses/CIDRs. */
export function trustProxy(): Kind<TrustProxySetting> {
  return refuse('`false`, `true`, a number of proxy hops (0-100) or a comma-separated list of addresses/CIDRs', (value) => {
    const lower = value.toLowerCase();
    if (FALSE.includes(lower)) return false;
    if (TRUE.includes(lower)) return 1;
    if (/^\d+$/.test(value) && Number(value) <= 100) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
    if (entries.length > 0 && entries.every((entry) => isIP(entry.split('/')[0]) !== 0)) return entries;
    return undefined;
  });
}

/** One BCP 47 language tag in its canonical case (`de-ch` → `de-CH`), or undefined when it is none. */
export function canonicalLocale(tag: string): string | undefined {
  // Intl accepts extensions (`-u-…`) and private use; a post's language is a plain tag.
  if (!/^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/.test(tag)) return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical;
  } catch {
    return undefined;
  }
}

/** Comma-separated BCP 47 language tags, each in its canonical case, each once. */
export function localeList(): Kind<string[]> {
  const accepts = 'a comma-separated list of BCP 47 language tags (`en,de,de-CH`)';
  return {
    accepts,
    parse(value) {
      const tags: string[] = [];
      for (const entry of value.split(',').map((item) => item.trim())) {
        if (entry === '') continue;
        const tag = canonicalLocale(entry);
        if (tag === undefined) return new Invalid(`must be ${accepts}`, entry);
        if (!tags.includes(tag)) tags.push(tag);
      }
      return tags.length === 0 ? new Invalid(`must be ${accepts}`) : tags;
    },
  };
}

/** One BCP 47 language tag, in its canonical case. */
export function localeTag(): Kind<string> {
  return refuse('a BCP 47 language tag (`en`, `de-CH`)', canonicalLocale);
}

/** `de-CH:de,de:en`: for each locale, the one to fall back to (canonical case). Declare it with `default: ''`. */
export function localeFallbacks(): Kind<[string, string][]> {
  const accepts = 'a comma-separated list of `locale:fallback` pairs (`de-CH:de,de:en`)';
  return {
    accepts,
    parse(value) {
      const pairs: [string, string][] = [];
      for (const entry of value.split(',').map((item) => item.trim())) {
        if (entry === '') continue;
        const sides = entry.split(':').map((side) => canonicalLocale(side.trim()));
        const [from, to] = sides;
        if (sides.length !== 2 || from === undefined || to === undefined) return new Invalid(`must be ${accepts}`, entry);
        if (pairs.some(([other]) => other === from)) return new Invalid(`must name each locale once (${from} falls back to one locale)`, entry);
        pairs.push([from, to]);
      }
      return pairs;
    },
  };
}
