import helmet from 'helmet';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HELMET_OPTIONS, securityHeaders } from './security-headers.js';

describe('securityHeaders (helmet run once at start-up)', () => {
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
      expect(securityHeaders()).toEqual(real);
      expect(real['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(real['x-powered-by']).toBeUndefined();
    } finally {
      server.close();
    }
  });
});
