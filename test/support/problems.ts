import type { Response } from 'supertest';
import { expect } from 'vitest';

/** Text that must never reach a client: stack frames, SQL, file paths, password hashes. */
const LEAKS: [string, RegExp][] = [
  ['a stack frame', /\bat \S+ \(?[^)\s]*:\d+:\d+\)?/],
  ['a file path', /(\/work\/|node_modules|\/src\/|\.ts:\d|\.js:\d)/],
  ['SQL', /\b(SELECT|INSERT INTO|UPDATE \S+ SET|DELETE FROM)\b|QueryFailedError|SQLITE_|duplicate key/i],
  ['a password hash', /scrypt\$|password_?hash/i],
];

export function expectNoLeaks(text: string): void {
  for (const [what, pattern] of LEAKS) {
    expect(pattern.test(text), `the body carries ${what}: ${text}`).toBe(false);
  }
}

/**
 * Asserts an RFC 9457 problem response: status, content type, the full shape, the code, and
 * that nothing internal leaks. Returns the body.
 */
export function expectProblem(
  response: Response,
  status: number,
  code?: string,
): { type: string; title: string; status: number; detail: string; instance: string; code: string; errors?: { field: string; message: string }[] } {
  expect(response.status, `status of ${response.text}`).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(response.text);
  expect(body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: expect.stringMatching(/^\//),
    code: expect.any(String),
  });
  if (code !== undefined) expect(body.code).toBe(code);
  if (status === 401) expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  expectNoLeaks(response.text);
  return body;
}

/** The fields named in a validation problem's `errors`. */
export function errorFields(response: Response): string[] {
  const body = JSON.parse(response.text) as { errors?: { field: string }[] };
  return (body.errors ?? []).map((error) => error.field);
}
