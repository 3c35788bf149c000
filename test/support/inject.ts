import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { expectNoLeaks } from './problems.js';
import type { TestApp } from './test-app.js';

/** A request handed straight to Fastify (no socket): fast enough for thousands of fuzz cases. */
export interface InjectRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'OPTIONS';
  url: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
}

export interface InjectResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export function injector(app: TestApp): (request: InjectRequest) => Promise<InjectResponse> {
  const fastify = app.app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  return async ({ method, url, headers, payload }) => {
    const response = await fastify.inject({ method, url, headers, payload });
    return { status: response.statusCode, headers: response.headers, body: response.body };
  };
}

export const header = (response: InjectResponse, name: string): string => {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value === undefined ? '' : String(value);
};

/** `what` describes the request, for the failure message. */
export function expectProblemBody(response: InjectResponse, what: string): Record<string, unknown> {
  expect(header(response, 'content-type'), `${what}: ${response.status} ${response.body.slice(0, 300)}`).toMatch(
    /^application\/problem\+json/,
  );
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(body, what).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status: response.status,
    detail: expect.any(String),
    instance: expect.stringMatching(/^\//),
    code: expect.any(String),
  });
  // `instance` repeats the client's own path: leave it out of the leak check.
  expectNoLeaks(JSON.stringify({ ...body, instance: undefined }));
  return body;
}

/** Never a 5xx; every error (4xx) is problem+json that leaks nothing. */
export function expectNoServerError(response: InjectResponse, what: string): void {
  expect(response.status, `${what}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
  if (response.status >= 400) expectProblemBody(response, what);
}

/** A POST /graphql answer: never a 5xx; GraphQL errors each with a code (never an internal one), or problem+json. */
export function expectGraphQLAnswer(response: InjectResponse, what: string): { data?: unknown; errors?: { message: string; extensions?: { code?: unknown } }[] } {
  expect(response.status, `${what}: ${response.body.slice(0, 400)}`).toBeLessThan(500);
  const type = header(response, 'content-type');
  if (type.startsWith('application/problem+json')) {
    expect(response.status, what).toBeGreaterThanOrEqual(400);
    expectProblemBody(response, what);
    return {};
  }
  expect(type, `${what}: ${response.body.slice(0, 300)}`).toMatch(/^application\/(graphql-response\+)?json/);
  const body = JSON.parse(response.body) as { data?: unknown; errors?: { message: string; extensions?: { code?: unknown } }[] };
  expect(body.data !== undefined || body.errors !== undefined, `${what}: ${response.body.slice(0, 300)}`).toBe(true);
  for (const error of body.errors ?? []) {
    expect(error.message, what).toEqual(expect.any(String));
    expect(error.extensions?.code, `${what}: every error carries a code: ${response.body.slice(0, 300)}`).toEqual(expect.any(String));
    expect(error.extensions?.code, `${what}: ${response.body.slice(0, 300)}`).not.toBe('INTERNAL_SERVER_ERROR');
    expect(error.extensions, what).not.toHaveProperty('stacktrace');
  }
  expectNoGraphQLLeaks(response.body);
  return body;
}

/**
 * The leak check of problems.ts, with SQL matched as the drivers send it (upper case): GraphQL's
 * own messages say "must select only one top level field".
 */
export function expectNoGraphQLLeaks(text: string): void {
  const leaks: [string, RegExp][] = [
    ['a stack frame', /\bat \S+ \(?[^)\s]*:\d+:\d+\)?/],
    ['a file path', /(\/work\/|node_modules|\/src\/|\.ts:\d|\.js:\d)/],
    ['SQL', /\b(SELECT|INSERT INTO|UPDATE \S+ SET|DELETE FROM)\b|QueryFailedError|SQLITE_|duplicate key/],
    ['a password hash', /scrypt\$|password_?hash/i],
  ];
  for (const [what, pattern] of leaks) expect(pattern.test(text), `the body carries ${what}: ${text.slice(0, 500)}`).toBe(false);
}
