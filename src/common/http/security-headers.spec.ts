import helmet from 'helmet';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HELMET_OPTIONS, helmetHeaders, securityHeaders, securityHeadersFor } from './security-headers.js';

describe('helmetHeaders (helmet run once at start-up)', () => {
  it('are exactly the headers helmet sets on a real response', async () => {
    const middleware = helmet(HELMET_OPTIONS);
    const server = createServer((request, response) => {
      response.setHeader('x-powered-by', 'something');
      middleware(request, response, () => response.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const real = Object.fromEntries(
        [...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)),
      );
      expect(helmetHeaders()).toEqual(real);
      expect(real['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(real['x-powered-by']).toBeUndefined();
    } finally {
      server.close();
    }
  });
});

describe('securityHeaders', () => {
  const headers = securityHeaders();

  it('gives a page all of helmet\'s headers', () => {
    expect(headers.page).toEqual(helmetHeaders());
    for (const type of ['text/html', 'text/html; charset=utf-8']) expect(securityHeadersFor(headers, type)).toBe(headers.page);
  });

  it('gives every other answer nosniff, HSTS, no framing and a CSP that loads nothing, as helmet words them', () => {
    expect(headers.data).toEqual({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'strict-transport-security': headers.page['strict-transport-security'],
      'x-content-type-options': 'nosniff',
      'x-frame-options': headers.page['x-frame-options'],
    });
    expect(headers.data['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(headers.data['x-frame-options']).toMatch(/^(SAMEORIGIN|DENY)$/);
    for (const type of ['application/json; charset=utf-8', 'application/problem+xml', 'application/hal+json', 'text/plain', undefined, 42]) {
      expect(securityHeadersFor(headers, type)).toBe(headers.data);
    }
  });
});
