import { existsSync, readFileSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { type DatabaseConfig, Invalid, type Setting } from './setting-kinds.js';
import { SETTINGS } from './settings.js';

/**
 * The settings of the service, read once from the environment (and an optional `.env`) as
 * settings.ts declares them. This is the only place that knows about process.env; everything
 * else injects `AppConfig`.
 */
export type { DatabaseConfig, TrustProxySetting } from './setting-kinds.js';

/** Each declared setting's value, typed by its kind (T | undefined when it has no default). */
export type SettingValues = { -readonly [K in keyof typeof SETTINGS]: (typeof SETTINGS)[K] extends Setting<infer T> ? T : never };

export type NodeEnv = SettingValues['nodeEnv'];

/** Single sign-on through an OpenID Connect provider (AUTH_JWKS_URL and its companions). */
export interface OidcConfig {
  jwksUrl: URL;
  issuer: string;
  audience: string;
  rolesClaim: string;
  adminRole: string;
  /** An unknown `kid` refetches the keys at most once per this many ms. */
  jwksCooldownMs: number;
  /** Keys older than this are refetched before use. */
  jwksCacheMaxAgeMs: number;
  jwksTimeoutMs: number;
}

type Given = (key: keyof SettingValues) => boolean;

/** Rules across settings; a rule about one setting alone belongs to its declaration. */
function crossCheck(values: SettingValues, given: Given): string[] {
  const problems: string[] = [];
  if (given('adminEmail') !== given('adminPassword')) problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  if (values.graphqlPersistedQueries === 'only' && !given('graphqlPersistedQueriesFile')) {
    problems.push('GRAPHQL_PERSISTED_QUERIES_FILE is required when GRAPHQL_PERSISTED_QUERIES=only');
  }
  if (given('authJwksUrl')) {
    if (!given('authIssuer')) problems.push('AUTH_ISSUER is required when AUTH_JWKS_URL is set (the exact "iss" of the provider\'s tokens)');
    if (!given('authAudience')) problems.push('AUTH_AUDIENCE is required when AUTH_JWKS_URL is set (the "aud" the provider puts in tokens for this service)');
  } else if (given('authIssuer') || given('authAudience')) {
    problems.push('AUTH_ISSUER and AUTH_AUDIENCE need AUTH_JWKS_URL (single sign-on is off without it)');
  }
  if (given('databaseReplicaUrls') && values.databaseReplicaUrls !== undefined && values.database !== undefined && values.database.type !== 'postgres') {
    problems.push('DATABASE_REPLICA_URLS needs a PostgreSQL DATABASE_URL (replicas are PostgreSQL standbys)');
  }
  if (given('databaseDirectUrl') && values.database !== undefined && values.database.type !== 'postgres') {
    problems.push('DATABASE_DIRECT_URL needs a PostgreSQL DATABASE_URL (it is the direct way to the same database)');
  }
  const locales = values.supportedLocales;
  if (locales !== undefined) {
    if (values.defaultLocale !== undefined && !locales.includes(values.defaultLocale)) {
      problems.push(`DEFAULT_LOCALE must be one of SUPPORTED_LOCALES (${locales.join(', ')}) (got "${values.defaultLocale}")`);
    }
    problems.push(...fallbackProblems(values.localeFallbacks ?? [], locales));
  }
  if (values.mediaStorage === 's3' && !given('s3Bucket')) problems.push('S3_BUCKET is required when MEDIA_STORAGE=s3');
  return problems;
}

/** LOCALE_FALLBACKS: both sides of each pair supported, and no chain that comes back to where it started. */
function fallbackProblems(pairs: readonly [string, string][], locales: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [from, to] of pairs) {
    for (const side of [from, to]) if (!locales.includes(side)) problems.push(`LOCALE_FALLBACKS names ${side}, which is not one of SUPPORTED_LOCALES (${locales.join(', ')})`);
  }
  const next = new Map(pairs);
  for (const [start] of pairs) {
    const seen = new Set([start]);
    for (let at = next.get(start); at !== undefined; at = next.get(at)) {
      if (seen.has(at)) {
        problems.push(`LOCALE_FALLBACKS must have no cycle (${[...seen, at].join(' → ')})`);
        return problems;
      }
      seen.add(at);
    }
  }
  return problems;
}

/** The values the rest of the code reads: the settings, with the compound ones put together. */
function configValues(values: SettingValues, given: Given) {
  const { authJwksUrl, authIssuer, authAudience, authRolesClaim, authAdminRole, authJwksCooldownMs, authJwksCacheMaxAgeMs, authJwksTimeoutMs, ...rest } =
    values;
  const oidc: OidcConfig | undefined =
    authJwksUrl === undefined || authIssuer === undefined || authAudience === undefined
      ? undefined
      : {
          jwksUrl: new URL(authJwksUrl),
          issuer: authIssuer,
          audience: authAudience,
          rolesClaim: authRolesClaim,
          adminRole: authAdminRole,
          jwksCooldownMs: authJwksCooldownMs,
          jwksCacheMaxAgeMs: authJwksCacheMaxAgeMs,
          jwksTimeoutMs: authJwksTimeoutMs,
        };
  return {
    ...rest,
    /** DEFAULT_LOCALE, else the first of SUPPORTED_LOCALES. */
    defaultLocale: rest.defaultLocale ?? rest.supportedLocales[0],
    /** True when JWT_SECRET was not set and a random per-process secret is in use. */
    jwtSecretGenerated: !given('jwtSecret'),
    /** Set when AUTH_JWKS_URL is: tokens of that OpenID Connect provider are accepted. */
    oidc,
  };
}

export type ConfigValues = ReturnType<typeof configValues>;

/** A class whose instances carry `values`' properties, typed as they are. */
function classOf<V extends object>(): new (values: V) => V {
  return class {
    constructor(values: V) {
      Object.assign(this, values);
    }
  } as new (values: V) => V;
}

/** The validated settings; injected everywhere (`config.rateLimitMax`). */
export class AppConfig extends classOf<ConfigValues>() {
  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** A variable's text, trimmed; blank counts as unset. */
function textOf(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

/** The process environment over the settings of an optional `.env` file in the working directory. */
export function readEnvironment(): Env {
  const fromFile = existsSync('.env') ? parseDotenv(readFileSync('.env')) : {};
  return { ...fromFile, ...process.env };
}

/** Builds the configuration from an environment; throws a ConfigError naming every bad setting. */
export function loadConfig(env: Env = readEnvironment()): AppConfig {
  const production = textOf(env, SETTINGS.nodeEnv.env) === 'production';
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS)) {
    const text = textOf(env, setting.env);
    const value = setting.read(text, production);
    if (value instanceof Invalid) problems.push(setting.message(value, text));
    else values[key] = value;
  }
  // Every key is set unless its value was refused; then only crossCheck runs before the throw.
  const settings = values as SettingValues;
  const given: Given = (key) => textOf(env, SETTINGS[key].env) !== undefined;
  problems.push(...crossCheck(settings, given));
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return new AppConfig(configValues(settings, given));
}

/** DATABASE_URL alone (undefined: the default), or the message naming it. */
export function parseDatabaseUrl(url: string | undefined): DatabaseConfig | string {
  const parsed = SETTINGS.database.read(url, false);
  return parsed instanceof Invalid ? SETTINGS.database.message(parsed, url) : parsed;
}
