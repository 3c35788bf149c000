import { readFileSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './app-config.js';
import { SETTINGS } from './settings.js';

const declared = Object.values(SETTINGS);

function messageFor(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('the setting declarations', () => {
  it('name each environment variable once, in UPPER_SNAKE_CASE', () => {
    const names = declared.map((setting) => setting.env);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });

  it('describe each setting in a sentence', () => {
    for (const setting of declared) expect(setting.description, setting.env).toMatch(/^\S.*\.$/s);
  });

  it('document the defaults loadConfig uses: .env.example read as a .env gives the configuration of an empty environment', () => {
    const example = parseDotenv(readFileSync('.env.example'));
    expect(Object.keys(example).sort()).toEqual(declared.map((setting) => setting.env).sort());
    const fromExample = { ...loadConfig(example), jwtSecret: 'generated' };
    const fromNothing = { ...loadConfig({}), jwtSecret: 'generated' };
    expect(fromExample).toEqual(fromNothing);
  });
});

describe('messages for refused values', () => {
  it('say what the setting accepts and quote the value', () => {
    expect(messageFor({ PORT: 'abc' })).toContain('PORT must be a whole number from 0 to 65535 (got "abc")');
    expect(messageFor({ RESPONSE_CACHE: 'redis' })).toContain('RESPONSE_CACHE must be one of memory, off (got "redis")');
    expect(messageFor({ POSTS_REVIEW: 'sometimes' })).toContain('POSTS_REVIEW must be one of off, required (got "sometimes")');
    expect(loadConfig({}).postsReview).toBe('off');
    expect(loadConfig({ POSTS_REVIEW: 'required' }).postsReview).toBe('required');
    expect(messageFor({ METRICS_ENABLED: 'sometimes' })).toContain('METRICS_ENABLED must be true or false (got "sometimes")');
    expect(messageFor({ CORS_ORIGINS: 'https://ok.example.com, bad' })).toContain('CORS_ORIGINS must be a comma-separated list of origins like https://app.example.com (got "bad")');
    expect(messageFor({ AUTH_JWKS_URL: 'ftp://x', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' })).toContain('AUTH_JWKS_URL must be a URL starting with https:// or http:// (got "ftp://x")');
  });

  // A new secret needs a case here: the declarations' secrets must be exactly these keys.
  const secrets: Record<string, Record<string, string>> = {
    DATABASE_URL: { DATABASE_URL: 'mysql://blog:hunter2@db.example.com/blog' },
    DATABASE_REPLICA_URLS: {
      DATABASE_URL: 'postgres://db.example.com/blog',
      DATABASE_REPLICA_URLS: 'postgres://blog:hunter2@replica.example.com/blog,mysql://blog:hunter2@other.example.com/blog',
    },
    DATABASE_DIRECT_URL: { DATABASE_URL: 'postgres://pgbouncer.example.com/blog', DATABASE_DIRECT_URL: 'mysql://blog:hunter2@db.example.com/blog' },
    REDIS_URL: { REDIS_URL: 'http://:hunter2@cache.example.com' },
    ADMIN_PASSWORD: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'hunter2' },
    JWT_SECRET: { JWT_SECRET: 'hunter2' },
    OTEL_EXPORTER_OTLP_HEADERS: { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=hunter2,bad header' },
  };

  it('declare as secret exactly the settings tested below', () => {
    expect(declared.filter((setting) => setting.secret).map((setting) => setting.env).sort()).toEqual(Object.keys(secrets).sort());
  });

  it.each(Object.entries(secrets))('name %s but never quote its value', (name, env) => {
    const message = messageFor(env);
    expect(message).toContain(name);
    expect(message).not.toContain('hunter2');
  });

  it('refuse DATABASE_DIRECT_URL beside a SQLite DATABASE_URL', () => {
    expect(messageFor({ DATABASE_DIRECT_URL: 'postgres://db.example.com/blog' })).toContain('DATABASE_DIRECT_URL needs a PostgreSQL DATABASE_URL');
    expect(loadConfig({ DATABASE_URL: 'postgres://pgbouncer.example.com/blog', DATABASE_DIRECT_URL: 'postgres://db.example.com/blog' }).databaseDirectUrl).toBe('postgres://db.example.com/blog');
  });

  it('name JWT_SECRET when production has none', () => {
    expect(messageFor({ NODE_ENV: 'production' })).toContain('JWT_SECRET is required when NODE_ENV=production');
  });
});
