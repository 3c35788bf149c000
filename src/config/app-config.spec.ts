import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDatabaseUrl } from './app-config.js';

const SECRET = 'x'.repeat(32);

/** The ConfigError thrown by loadConfig(env), failing the test when nothing is thrown. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('uses the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.nodeEnv).toBe('development');
    expect(config.isProduction).toBe(false);
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.logLevel).toBe('info');
    expect(config.database).toEqual({ type: 'sqlite', url: './data/blog.sqlite' });
    expect(config.seedDemoData).toBe(true);
    expect(config.adminEmail).toBeUndefined();
    expect(config.adminPassword).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.rateLimitMax).toBe(1000);
    expect(config.rateLimitWindowS).toBe(60);
    expect(config.rateLimitAuthMax).toBe(20);
    expect(config.metricsEnabled).toBe(true);
    expect(config.responseCache).toBe('memory');
    expect(config.responseCacheMaxBytes).toBe(64 * 1_048_576);
    expect(config.corsOrigins).toEqual([]);
    expect(config.trustProxy).toBe(false);
    expect(config.bodyLimitBytes).toBe(1_048_576);
    expect(config.eventsRetentionDays).toBe(7);
    expect(config.subscriptionsMaxQueue).toBe(1000);
    expect(config.subscriptionsStallTimeoutMs).toBe(30_000);
  });

  it('generates a random JWT secret outside production when none is set', () => {
    const first = loadConfig({});
    const second = loadConfig({});
    expect(first.jwtSecretGenerated).toBe(true);
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.jwtSecret).not.toBe(second.jwtSecret);
  });

  it('reads every setting it is given', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '8080',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: 'postgres://u:p@db.example.com:5433/blog',
      SEED_DEMO_DATA: 'false',
      ADMIN_EMAIL: 'Root@Example.COM',
      ADMIN_PASSWORD: 'root-password',
      JWT_SECRET: SECRET,
      REDIS_URL: 'redis://cache:6379',
      RATE_LIMIT_MAX: '0',
      RATE_LIMIT_WINDOW_S: '30',
      RATE_LIMIT_AUTH_MAX: '5',
      METRICS_ENABLED: 'false',
      RESPONSE_CACHE: 'off',
      RESPONSE_CACHE_MAX_MB: '8',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
      TRUST_PROXY: 'true',
      BODY_LIMIT_BYTES: '2048',
      EVENTS_RETENTION_DAYS: '30',
      SUBSCRIPTIONS_MAX_QUEUE: '50',
      SUBSCRIPTIONS_STALL_TIMEOUT_MS: '5000',
    });
    expect(config.isProduction).toBe(true);
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.logLevel).toBe('warn');
    expect(config.database).toEqual({ type: 'postgres', url: 'postgres://u:p@db.example.com:5433/blog' });
    expect(config.seedDemoData).toBe(false);
    expect(config.adminEmail).toBe('root@example.com');
    expect(config.adminPassword).toBe('root-password');
    expect(config.jwtSecret).toBe(SECRET);
    expect(config.jwtSecretGenerated).toBe(false);
    expect(config.redisUrl).toBe('redis://cache:6379');
    expect(config.rateLimitMax).toBe(0);
    expect(config.rateLimitWindowS).toBe(30);
    expect(config.rateLimitAuthMax).toBe(5);
    expect(config.metricsEnabled).toBe(false);
    expect(config.responseCache).toBe('off');
    expect(config.responseCacheMaxBytes).toBe(8 * 1_048_576);
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(config.trustProxy).toBe(1);
    expect(config.bodyLimitBytes).toBe(2048);
    expect(config.eventsRetentionDays).toBe(30);
    expect(config.subscriptionsMaxQueue).toBe(50);
    expect(config.subscriptionsStallTimeoutMs).toBe(5000);
  });

  it('treats an empty value as unset', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '  ', SEED_DEMO_DATA: '' });
    expect(config.port).toBe(3000);
    expect(config.database.type).toBe('sqlite');
    expect(config.seedDemoData).toBe(true);
  });

  describe('refuses a bad value with a message naming the setting', () => {
    const cases: [string, Record<string, string>][] = [
      ['PORT', { PORT: 'abc' }],
      ['PORT', { PORT: '70000' }],
      ['PORT', { PORT: '80.5' }],
      ['RATE_LIMIT_MAX', { RATE_LIMIT_MAX: '-1' }],
      ['RATE_LIMIT_WINDOW_S', { RATE_LIMIT_WINDOW_S: '0' }],
      ['RATE_LIMIT_AUTH_MAX', { RATE_LIMIT_AUTH_MAX: 'many' }],
      ['SEED_DEMO_DATA', { SEED_DEMO_DATA: 'maybe' }],
      ['METRICS_ENABLED', { METRICS_ENABLED: 'sometimes' }],
      ['RESPONSE_CACHE', { RESPONSE_CACHE: 'redis' }],
      ['RESPONSE_CACHE_MAX_MB', { RESPONSE_CACHE_MAX_MB: '0' }],
      ['RESPONSE_CACHE_MAX_MB', { RESPONSE_CACHE_MAX_MB: 'lots' }],
      ['TRUST_PROXY', { TRUST_PROXY: 'two' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
      ['DATABASE_URL', { DATABASE_URL: 'sqlite:' }],
      ['DATABASE_URL', { DATABASE_URL: 'postgres://[bad' }],
      ['REDIS_URL', { REDIS_URL: 'http://x' }],
      ['CORS_ORIGINS', { CORS_ORIGINS: 'bad' }],
      ['CORS_ORIGINS', { CORS_ORIGINS: 'https://ok.example.com,https://x.example.com/path' }],
      ['ADMIN_PASSWORD', { ADMIN_EMAIL: 'root@example.com' }],
      ['ADMIN_EMAIL', { ADMIN_PASSWORD: 'root-password' }],
      ['ADMIN_EMAIL', { ADMIN_EMAIL: 'not-an-address', ADMIN_PASSWORD: 'root-password' }],
      ['ADMIN_PASSWORD', { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'short' }],
      ['JWT_SECRET', { NODE_ENV: 'production' }],
      ['JWT_SECRET', { JWT_SECRET: 'too-short-secret' }],
      ['NODE_ENV', { NODE_ENV: 'staging' }],
      ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
      ['BODY_LIMIT_BYTES', { BODY_LIMIT_BYTES: '1mb' }],
      ['JWT_EXPIRES_IN', { JWT_EXPIRES_IN: '1h' }],
      ['EVENTS_RETENTION_DAYS', { EVENTS_RETENTION_DAYS: '0' }],
      ['EVENTS_RETENTION_DAYS', { EVENTS_RETENTION_DAYS: '7d' }],
      ['SUBSCRIPTIONS_MAX_QUEUE', { SUBSCRIPTIONS_MAX_QUEUE: '0' }],
      ['SUBSCRIPTIONS_STALL_TIMEOUT_MS', { SUBSCRIPTIONS_STALL_TIMEOUT_MS: '50' }],
      ['SUBSCRIPTIONS_STALL_TIMEOUT_MS', { SUBSCRIPTIONS_STALL_TIMEOUT_MS: '30s' }],
    ];
    it.each(cases)('%s in %j', (setting, env) => {
      const error = configError(env);
      expect(error.message).toContain(setting);
    });
  });

  it('names every bad setting at once', () => {
    const error = configError({ PORT: 'abc', RATE_LIMIT_MAX: '-1', REDIS_URL: 'http://x' });
    expect(error.message).toContain('PORT');
    expect(error.message).toContain('RATE_LIMIT_MAX');
    expect(error.message).toContain('REDIS_URL');
  });

  it('accepts production with a long enough JWT secret', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET });
    expect(config.isProduction).toBe(true);
    expect(config.jwtSecret).toBe(SECRET);
  });

  it('accepts the usual spellings of booleans', () => {
    for (const yes of ['true', 'TRUE', '1', 'yes', 'on']) expect(loadConfig({ TRUST_PROXY: yes }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16' }).trustProxy).toEqual(['10.0.0.1', '10.1.0.0/16']);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(/TRUST_PROXY/);
    for (const no of ['false', 'False', '0', 'no', 'off']) expect(loadConfig({ SEED_DEMO_DATA: no }).seedDemoData).toBe(false);
  });

  it('accepts rediss:// and RATE_LIMIT_MAX=0 (limit off)', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://secure:6380' }).redisUrl).toBe('rediss://secure:6380');
    expect(loadConfig({ RATE_LIMIT_MAX: '0' }).rateLimitMax).toBe(0);
  });
});

describe('DATABASE_URL parsing', () => {
  it('defaults to the embedded SQLite file', () => {
    expect(parseDatabaseUrl(undefined)).toEqual({ type: 'sqlite', url: './data/blog.sqlite' });
  });

  it('reads sqlite:<path>', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:./tmp/blog.db' }).database).toEqual({ type: 'sqlite', url: './tmp/blog.db' });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/blog.sqlite' }).database).toEqual({
      type: 'sqlite',
      url: '/var/lib/blog.sqlite',
    });
  });

  it('reads the URL form sqlite://<path> too', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:///var/lib/blog.sqlite' }).database).toEqual({
      type: 'sqlite',
      url: '/var/lib/blog.sqlite',
    });
  });

  it('reads sqlite::memory:', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database).toEqual({ type: 'sqlite', url: ':memory:' });
  });

  it('reads postgres:// and postgresql:// URLs as they are', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/test';
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ type: 'postgres', url });
    const long = 'postgresql://user:secret@db:5432/blog?sslmode=require';
    expect(loadConfig({ DATABASE_URL: long }).database).toEqual({ type: 'postgres', url: long });
  });

  it('returns a message naming DATABASE_URL for anything else', () => {
    expect(parseDatabaseUrl('mysql://x')).toMatch(/DATABASE_URL/);
    expect(parseDatabaseUrl('blog.sqlite')).toMatch(/DATABASE_URL/);
  });
});

describe('single sign-on settings (AUTH_*)', () => {
  const SSO = { AUTH_JWKS_URL: 'https://id.example.com/realms/blog/protocol/openid-connect/certs', AUTH_ISSUER: 'https://id.example.com/realms/blog', AUTH_AUDIENCE: 'blog-api' };

  it('is off without AUTH_JWKS_URL', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
  });

  it('reads the provider and the defaults of the role settings', () => {
    const oidc = loadConfig(SSO).oidc!;
    expect(oidc.jwksUrl.href).toBe(SSO.AUTH_JWKS_URL);
    expect(oidc).toMatchObject({ issuer: SSO.AUTH_ISSUER, audience: 'blog-api', rolesClaim: 'roles', adminRole: 'blog-admin', jwksCooldownMs: 30_000, jwksCacheMaxAgeMs: 600_000, jwksTimeoutMs: 5000 });
  });

  it('reads the role claim, the admin role and the key cache settings', () => {
    const oidc = loadConfig({ ...SSO, AUTH_ROLES_CLAIM: 'groups', AUTH_ADMIN_ROLE: 'editors', AUTH_JWKS_COOLDOWN_MS: '0', AUTH_JWKS_CACHE_MAX_AGE_MS: '60000', AUTH_JWKS_TIMEOUT_MS: '1000' }).oidc!;
    expect(oidc).toMatchObject({ rolesClaim: 'groups', adminRole: 'editors', jwksCooldownMs: 0, jwksCacheMaxAgeMs: 60_000, jwksTimeoutMs: 1000 });
  });

  const refused: [string, Record<string, string>][] = [
    ['AUTH_ISSUER', { ...SSO, AUTH_ISSUER: '' }],
    ['AUTH_AUDIENCE', { ...SSO, AUTH_AUDIENCE: ' ' }],
    ['AUTH_JWKS_URL', { ...SSO, AUTH_JWKS_URL: 'not a url' }],
    ['AUTH_JWKS_URL', { ...SSO, AUTH_JWKS_URL: 'file:///etc/keys.json' }],
    ['AUTH_JWKS_URL', { AUTH_ISSUER: SSO.AUTH_ISSUER, AUTH_AUDIENCE: 'blog-api' }],
    ['AUTH_JWKS_COOLDOWN_MS', { ...SSO, AUTH_JWKS_COOLDOWN_MS: '-1' }],
    ['AUTH_JWKS_TIMEOUT_MS', { ...SSO, AUTH_JWKS_TIMEOUT_MS: '5s' }],
  ];
  it.each(refused)('start-up fails naming %s in %j', (setting, env) => {
    expect(configError(env).message).toContain(setting);
  });

  it('names both missing companions of AUTH_JWKS_URL at once', () => {
    const message = configError({ AUTH_JWKS_URL: SSO.AUTH_JWKS_URL }).message;
    expect(message).toContain('AUTH_ISSUER is required when AUTH_JWKS_URL is set');
    expect(message).toContain('AUTH_AUDIENCE is required when AUTH_JWKS_URL is set');
  });
});

describe('webhook settings (WEBHOOK_*)', () => {
  it('defaults to a 5 s timeout, retries from 5 s, 8 attempts and public addresses only', () => {
    const config = loadConfig({});
    expect(config.webhookTimeoutMs).toBe(5000);
    expect(config.webhookRetryBaseMs).toBe(5000);
    expect(config.webhookMaxAttempts).toBe(8);
    expect(config.webhookAllowPrivate).toBe(false);
  });

  it('reads every setting it is given', () => {
    const config = loadConfig({ WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(config.webhookTimeoutMs).toBe(500);
    expect(config.webhookRetryBaseMs).toBe(50);
    expect(config.webhookMaxAttempts).toBe(3);
    expect(config.webhookAllowPrivate).toBe(true);
  });

  const refused: [string, Record<string, string>][] = [
    ['WEBHOOK_TIMEOUT_MS', { WEBHOOK_TIMEOUT_MS: '5s' }],
    ['WEBHOOK_TIMEOUT_MS', { WEBHOOK_TIMEOUT_MS: '0' }],
    ['WEBHOOK_RETRY_BASE_MS', { WEBHOOK_RETRY_BASE_MS: '-5' }],
    ['WEBHOOK_MAX_ATTEMPTS', { WEBHOOK_MAX_ATTEMPTS: '0' }],
    ['WEBHOOK_MAX_ATTEMPTS', { WEBHOOK_MAX_ATTEMPTS: 'many' }],
    ['WEBHOOK_ALLOW_PRIVATE', { WEBHOOK_ALLOW_PRIVATE: 'sometimes' }],
  ];
  it.each(refused)('start-up fails naming %s in %j', (setting, env) => {
    expect(configError(env).message).toContain(setting);
  });
});

describe('language settings (SUPPORTED_LOCALES, DEFAULT_LOCALE, LOCALE_FALLBACKS)', () => {
  it('defaults to en alone, with no fallbacks', () => {
    const config = loadConfig({});
    expect(config.supportedLocales).toEqual(['en']);
    expect(config.defaultLocale).toBe('en');
    expect(config.localeFallbacks).toEqual([]);
  });

  it('keeps the tags in their canonical case, and DEFAULT_LOCALE is the first unless set', () => {
    const config = loadConfig({ SUPPORTED_LOCALES: 'EN, de ,de-ch,fr,de', LOCALE_FALLBACKS: 'de-ch:DE,de:en' });
    expect(config.supportedLocales).toEqual(['en', 'de', 'de-CH', 'fr']);
    expect(config.defaultLocale).toBe('en');
    expect(config.localeFallbacks).toEqual([['de-CH', 'de'], ['de', 'en']]);
    expect(loadConfig({ SUPPORTED_LOCALES: 'en,de', DEFAULT_LOCALE: 'DE' }).defaultLocale).toBe('de');
  });

  const refused: [string, Record<string, string>][] = [
    ['SUPPORTED_LOCALES', { SUPPORTED_LOCALES: 'en,not a tag' }],
    ['SUPPORTED_LOCALES', { SUPPORTED_LOCALES: 'en,x' }],
    ['SUPPORTED_LOCALES', { SUPPORTED_LOCALES: ',' }],
    ['DEFAULT_LOCALE', { DEFAULT_LOCALE: 'de' }],
    ['DEFAULT_LOCALE', { DEFAULT_LOCALE: 'de_DE' }],
    ['LOCALE_FALLBACKS', { SUPPORTED_LOCALES: 'en,de', LOCALE_FALLBACKS: 'de' }],
    ['LOCALE_FALLBACKS', { SUPPORTED_LOCALES: 'en,de', LOCALE_FALLBACKS: 'de:fr' }],
    ['LOCALE_FALLBACKS', { SUPPORTED_LOCALES: 'en,de', LOCALE_FALLBACKS: 'de:en,de:de' }],
    ['LOCALE_FALLBACKS', { SUPPORTED_LOCALES: 'en,de,fr', LOCALE_FALLBACKS: 'de:fr,fr:en,en:de' }],
  ];
  it.each(refused)('start-up fails naming %s in %j', (setting, env) => {
    expect(configError(env).message).toContain(setting);
  });
});
