import { isIP } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';

/**
 * Every setting of the service, read once from the environment (and an optional `.env`).
 * This is the only file that knows about process.env; everything else injects `AppConfig`.
 */
export type NodeEnv = 'development' | 'production' | 'test';

export interface DatabaseConfig {
  type: 'sqlite' | 'postgres';
  /** SQLite: a file path or ':memory:'. PostgreSQL: the connection URL. */
  url: string;
}

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

export class AppConfig {
  nodeEnv: NodeEnv;
  port: number;
  host: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  database: DatabaseConfig;
  seedDemoData: boolean;
  adminEmail?: string;
  adminPassword?: string;
  jwtSecret: string;
  /** True when JWT_SECRET was not set and a random per-process secret is in use. */
  jwtSecretGenerated: boolean;
  jwtExpiresInS: number;
  redisUrl?: string;
  redisKeyPrefix: string;
  subscriptionsMaxConnections: number;
  subscriptionsMaxPerConnection: number;
  subscriptionsKeepAliveMs: number;
  /** WebSockets and event streams per client address, counted from the upgrade on. */
  subscriptionsMaxPerAddress: number;
  /** What the distinct subscriptions of one address may cost per event (complexity). */
  subscriptionsMaxComplexityPerAddress: number;
  /** Live events one subscription may have waiting for a slow client before it is ended (SUBSCRIBER_TOO_SLOW). */
  subscriptionsMaxQueue: number;
  /** How long an event stream's written data may stay undrained before the stream is ended (SUBSCRIBER_TOO_SLOW). */
  subscriptionsStallTimeoutMs: number;
  rateLimitMax: number;
  rateLimitWindowS: number;
  rateLimitAuthMax: number;
  /** Failed sign-ins per e-mail per hour, from all addresses together. */
  rateLimitAccountMax: number;
  /** Sign-ups per address per window. */
  rateLimitSignupMax: number;
  metricsEnabled: boolean;
  /** Anonymous reads answered from memory until a write changes them, or `off`. */
  responseCache: 'memory' | 'off';
  responseCacheMaxBytes: number;
  corsOrigins: string[];
  /** false, a number of proxy hops (true is 1), or the proxies' addresses/CIDRs. */
  trustProxy: TrustProxySetting;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  dbPoolSize: number;
  /** GraphQL: introspection (and "Did you mean" hints) on; default outside production only. */
  graphqlIntrospection: boolean;
  graphqlMaxDepth: number;
  graphqlMaxComplexity: number;
  graphqlMaxAliases: number;
  graphqlMaxTokens: number;
  graphqlMaxDocumentBytes: number;
  /** `apq`: automatic persisted queries; `only`: only the manifest's documents run; `off`. */
  graphqlPersistedQueries: 'apq' | 'only' | 'off';
  graphqlPersistedQueriesFile?: string;
  /** Bytes of automatically persisted queries kept (in Redis, or in this process). */
  graphqlApqMaxBytes: number;
  /** New automatically persisted queries one address may register per RATE_LIMIT_WINDOW_S. */
  graphqlApqRegistrationsMax: number;
  /** Set when AUTH_JWKS_URL is: tokens of that OpenID Connect provider are accepted. */
  oidc?: OidcConfig;
  /** How long a webhook receiver has to answer an attempt. */
  webhookTimeoutMs: number;
  /** The wait before the first retry of a webhook delivery; doubled for each further one. */
  webhookRetryBaseMs: number;
  /** Attempts of one delivery before it is given up. */
  webhookMaxAttempts: number;
  /** Webhooks may point at loopback, private and link-local addresses (development, tests). */
  webhookAllowPrivate: boolean;
  /** Days the event log keeps an event (GET /events, the `events` subscription's resume). */
  eventsRetentionDays: number;

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}

/**
 * Which proxy hops may tell the client's address (TRUST_PROXY): none, a number of hops counted
 * from the right of X-Forwarded-For (the entries our own proxies appended), or the proxies'
 * addresses. Entries a client wrote itself, to the left, are never taken.
 */
export type TrustProxySetting = false | number | string[];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  /** `false`, `true` (one hop), a number of hops, or a comma-separated list of addresses/CIDRs. */
  trustProxy(name: string): TrustProxySetting {
    const value = this.raw(name);
    if (value === undefined) return false;
    const lower = value.toLowerCase();
    if (['false', '0', 'no', 'off'].includes(lower)) return false;
    if (['true', 'yes', 'on'].includes(lower)) return 1;
    if (/^\d+$/.test(value) && Number(value) <= 100) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
    if (entries.length > 0 && entries.every((entry) => isIP(entry.split('/')[0]) !== 0)) return entries;
    this.problems.push(`${name} must be false, true, a number of proxy hops (0-100) or a comma-separated list of addresses/CIDRs (got "${value}")`);
    return false;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }
}

export function parseDatabaseUrl(url: string | undefined): DatabaseConfig | string {
  if (url === undefined) return { type: 'sqlite', url: './data/blog.sqlite' };
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '') return 'DATABASE_URL sqlite: needs a path, e.g. sqlite:./data/blog.sqlite or sqlite::memory:';
    return { type: 'sqlite', url: path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      new URL(url);
    } catch {
      return 'DATABASE_URL is not a valid postgres:// URL';
    }
    return { type: 'postgres', url };
  }
  return 'DATABASE_URL must start with sqlite: or postgres:// (or be unset for the embedded SQLite file)';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function readOidc(read: Reader): OidcConfig | undefined {
  const url = read.raw('AUTH_JWKS_URL');
  const issuer = read.raw('AUTH_ISSUER');
  const audience = read.raw('AUTH_AUDIENCE');
  const rolesClaim = read.string('AUTH_ROLES_CLAIM', 'roles');
  const adminRole = read.string('AUTH_ADMIN_ROLE', 'blog-admin');
  const jwksCooldownMs = read.int('AUTH_JWKS_COOLDOWN_MS', 30_000, 0, 86_400_000);
  const jwksCacheMaxAgeMs = read.int('AUTH_JWKS_CACHE_MAX_AGE_MS', 600_000, 1000, 604_800_000);
  const jwksTimeoutMs = read.int('AUTH_JWKS_TIMEOUT_MS', 5000, 100, 60_000);
  if (url === undefined) {
    if (issuer !== undefined || audience !== undefined) read.problems.push('AUTH_ISSUER and AUTH_AUDIENCE need AUTH_JWKS_URL (single sign-on is off without it)');
    return undefined;
  }
  let jwksUrl: URL | undefined;
  try {
    jwksUrl = new URL(url);
  } catch {
    // reported below
  }
  if (!jwksUrl || !['https:', 'http:'].includes(jwksUrl.protocol)) read.problems.push(`AUTH_JWKS_URL must be an http(s):// URL (got "${url}")`);
  if (issuer === undefined) read.problems.push('AUTH_ISSUER is required when AUTH_JWKS_URL is set (the exact "iss" of the provider\'s tokens)');
  if (audience === undefined) read.problems.push('AUTH_AUDIENCE is required when AUTH_JWKS_URL is set (the "aud" the provider puts in tokens for this service)');
  if (!jwksUrl || issuer === undefined || audience === undefined) return undefined;
  return { jwksUrl, issuer, audience, rolesClaim, adminRole, jwksCooldownMs, jwksCacheMaxAgeMs, jwksTimeoutMs };
}

/** The process environment over the settings of an optional `.env` file in the working directory. */
export function readEnvironment(): Env {
  const fromFile = existsSync('.env') ? parseDotenv(readFileSync('.env')) : {};
  return { ...fromFile, ...process.env };
}

/** Builds the configuration from an environment; throws a ConfigError naming every bad setting. */
export function loadConfig(env: Env = readEnvironment()): AppConfig {
  const read = new Reader(env);
  const config = new AppConfig();
  config.nodeEnv = read.oneOf('NODE_ENV', 'development', ['development', 'production', 'test'] as const);
  config.port = read.int('PORT', 3000, 0, 65535);
  config.host = read.string('HOST', '0.0.0.0');
  config.logLevel = read.oneOf('LOG_LEVEL', 'info', [
    'fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent',
  ] as const);

  const database = parseDatabaseUrl(read.raw('DATABASE_URL'));
  if (typeof database === 'string') read.problems.push(database);
  else config.database = database;
  config.dbPoolSize = read.int('DB_POOL_SIZE', 10, 1, 1000);
  config.seedDemoData = read.bool('SEED_DEMO_DATA', true);

  config.adminEmail = read.raw('ADMIN_EMAIL')?.toLowerCase();
  config.adminPassword = read.raw('ADMIN_PASSWORD');
  if (config.adminEmail !== undefined && !EMAIL.test(config.adminEmail)) {
    read.problems.push('ADMIN_EMAIL must be an e-mail address');
  }
  if (config.adminPassword !== undefined && (config.adminPassword.length < 8 || config.adminPassword.length > 128)) {
    read.problems.push('ADMIN_PASSWORD must be 8-128 characters');
  }
  if ((config.adminEmail === undefined) !== (config.adminPassword === undefined)) {
    read.problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }

  const secret = read.raw('JWT_SECRET');
  if (secret === undefined && config.nodeEnv === 'production') {
    read.problems.push('JWT_SECRET is required when NODE_ENV=production');
  } else if (secret !== undefined && secret.length < 32) {
    read.problems.push('JWT_SECRET must be at least 32 characters');
  }
  config.jwtSecretGenerated = secret === undefined;
  config.jwtSecret = secret ?? randomBytes(32).toString('hex');
  config.jwtExpiresInS = read.int('JWT_EXPIRES_IN', 3600, 60, 60 * 60 * 24 * 30);

  config.redisUrl = read.raw('REDIS_URL');
  if (config.redisUrl !== undefined && !/^rediss?:\/\//.test(config.redisUrl)) {
    read.problems.push('REDIS_URL must start with redis:// or rediss://');
  }
  config.redisKeyPrefix = read.string('REDIS_KEY_PREFIX', 'blog:');
  config.subscriptionsMaxConnections = read.int('SUBSCRIPTIONS_MAX_CONNECTIONS', 10_000, 1, 1_000_000);
  config.subscriptionsMaxPerConnection = read.int('SUBSCRIPTIONS_MAX_PER_CONNECTION', 100, 1, 100_000);
  config.subscriptionsKeepAliveMs = read.int('SUBSCRIPTIONS_KEEPALIVE_MS', 15_000, 0, 3_600_000);
  config.subscriptionsMaxPerAddress = read.int('SUBSCRIPTIONS_MAX_PER_ADDRESS', 100, 1, 1_000_000);
  config.subscriptionsMaxComplexityPerAddress = read.int('SUBSCRIPTIONS_MAX_COMPLEXITY_PER_ADDRESS', 5000, 1, 1_000_000_000);
  config.subscriptionsMaxQueue = read.int('SUBSCRIPTIONS_MAX_QUEUE', 1000, 1, 1_000_000);
  config.subscriptionsStallTimeoutMs = read.int('SUBSCRIPTIONS_STALL_TIMEOUT_MS', 30_000, 100, 3_600_000);
  config.rateLimitMax = read.int('RATE_LIMIT_MAX', 1000, 0, 1_000_000_000);
  config.rateLimitWindowS = read.int('RATE_LIMIT_WINDOW_S', 60, 1, 86_400);
  config.rateLimitAuthMax = read.int('RATE_LIMIT_AUTH_MAX', 20, 0, 1_000_000_000);
  config.rateLimitAccountMax = read.int('RATE_LIMIT_ACCOUNT_MAX', 100, 0, 1_000_000_000);
  config.rateLimitSignupMax = read.int('RATE_LIMIT_SIGNUP_MAX', 10, 0, 1_000_000_000);
  config.metricsEnabled = read.bool('METRICS_ENABLED', true);
  config.responseCache = read.oneOf('RESPONSE_CACHE', 'memory', ['memory', 'off'] as const);
  config.responseCacheMaxBytes = read.int('RESPONSE_CACHE_MAX_MB', 64, 1, 65_536) * 1_048_576;
  config.corsOrigins = (read.raw('CORS_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of config.corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
      read.problems.push(`CORS_ORIGINS entries must be origins like https://app.example.com (got "${origin}")`);
    }
  }
  config.trustProxy = read.trustProxy('TRUST_PROXY');
  config.bodyLimitBytes = read.int('BODY_LIMIT_BYTES', 1_048_576, 1024, 100 * 1_048_576);
  config.requestTimeoutMs = read.int('REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  config.shutdownTimeoutMs = read.int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000);

  config.graphqlIntrospection = read.bool('GRAPHQL_INTROSPECTION', config.nodeEnv !== 'production');
  config.graphqlMaxDepth = read.int('GRAPHQL_MAX_DEPTH', 10, 1, 1000);
  config.graphqlMaxComplexity = read.int('GRAPHQL_MAX_COMPLEXITY', 1000, 1, 1_000_000_000);
  config.graphqlMaxAliases = read.int('GRAPHQL_MAX_ALIASES', 50, 0, 100_000);
  config.graphqlMaxTokens = read.int('GRAPHQL_MAX_TOKENS', 5000, 100, 1_000_000);
  config.graphqlMaxDocumentBytes = read.int('GRAPHQL_MAX_DOCUMENT_BYTES', 102_400, 1024, 100 * 1_048_576);
  config.graphqlPersistedQueries = read.oneOf('GRAPHQL_PERSISTED_QUERIES', 'apq', ['apq', 'only', 'off'] as const);
  config.graphqlPersistedQueriesFile = read.raw('GRAPHQL_PERSISTED_QUERIES_FILE');
  config.graphqlApqMaxBytes = read.int('GRAPHQL_APQ_MAX_MB', 16, 1, 65_536) * 1_048_576;
  config.graphqlApqRegistrationsMax = read.int('GRAPHQL_APQ_REGISTRATIONS_MAX', 100, 0, 1_000_000_000);
  if (config.graphqlPersistedQueries === 'only' && config.graphqlPersistedQueriesFile === undefined) {
    read.problems.push('GRAPHQL_PERSISTED_QUERIES_FILE is required when GRAPHQL_PERSISTED_QUERIES=only');
  } else if (config.graphqlPersistedQueriesFile !== undefined && !existsSync(config.graphqlPersistedQueriesFile)) {
    read.problems.push(`GRAPHQL_PERSISTED_QUERIES_FILE: no such file "${config.graphqlPersistedQueriesFile}"`);
  }

  config.oidc = readOidc(read);
  config.eventsRetentionDays = read.int('EVENTS_RETENTION_DAYS', 7, 1, 36_500);

  config.webhookTimeoutMs = read.int('WEBHOOK_TIMEOUT_MS', 5000, 100, 120_000);
  config.webhookRetryBaseMs = read.int('WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000);
  config.webhookMaxAttempts = read.int('WEBHOOK_MAX_ATTEMPTS', 8, 1, 30);
  config.webhookAllowPrivate = read.bool('WEBHOOK_ALLOW_PRIVATE', false);

  if (read.problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  - ${read.problems.join('\n  - ')}`);
  }
  return config;
}
