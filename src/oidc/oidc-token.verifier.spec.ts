import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/app-config.js';
import type { ExternalAccountsService, ExternalClaims } from './external-accounts.service.js';
import { OidcTokenVerifier } from './oidc-token.verifier.js';

// How a verified token's claims become ExternalClaims: roles, names, e-mails, subjects.

const ISSUER = 'https://id.test/realms/blog';

describe('OidcTokenVerifier claims', () => {
  let server: Server;
  let url: string;
  let failing = false;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    server = createServer((_req, res) =>
      failing ? res.writeHead(502).end() : res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function verifier(env: Record<string, string> = {}): OidcTokenVerifier {
    const config = loadConfig({ AUTH_JWKS_URL: url, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: 'blog-api', ...env });
    return new OidcTokenVerifier(config, {} as ExternalAccountsService);
  }

  const token = (claims: Record<string, unknown>, subject = 'sub-1') =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience('blog-api').setSubject(subject).setIssuedAt().setExpirationTime('5m').sign(privateKey);

  const claimsOf = async (claims: Record<string, unknown>, env?: Record<string, string>, subject?: string): Promise<ExternalClaims> =>
    verifier(env).claims(await token(claims, subject));

  it('reads roles from the configured claim, a dotted name reaching into objects (Keycloak realm_access.roles)', async () => {
    expect((await claimsOf({ roles: ['blog-admin'] })).role).toBe('admin');
    expect((await claimsOf({ groups: ['editors'] }, { AUTH_ROLES_CLAIM: 'groups', AUTH_ADMIN_ROLE: 'editors' })).role).toBe('admin');
    expect((await claimsOf({ realm_access: { roles: ['blog-admin'] } }, { AUTH_ROLES_CLAIM: 'realm_access.roles' })).role).toBe('admin');
    expect((await claimsOf({ realm_access: { roles: ['reader'] } }, { AUTH_ROLES_CLAIM: 'realm_access.roles' })).role).toBe('author');
    // A namespaced claim whose name has dots (Auth0 style) is read as it is.
    expect((await claimsOf({ 'https://blog.example.com/roles': ['blog-admin'] }, { AUTH_ROLES_CLAIM: 'https://blog.example.com/roles' })).role).toBe('admin');
    expect((await claimsOf({ roles: 'blog-admin' })).role).toBe('author');
    expect((await claimsOf({})).role).toBe('author');
  });

  it('normalizes the e-mail (NFKC, lower case) and drops unusable ones', async () => {
    expect((await claimsOf({ email: ' Ｃarol@Example.COM ' })).email).toBe('carol@example.com');
    for (const email of ['no-at-sign', 'zero\u200bwidth@example.com', 'a'.repeat(320) + '@example.com', 42]) {
      expect((await claimsOf({ email })).email).toBeUndefined();
    }
  });

  it('an e-mail counts as verified only on an explicit email_verified: true (or "true")', async () => {
    expect((await claimsOf({ email: 'a@example.com', email_verified: true })).emailVerified).toBe(true);
    expect((await claimsOf({ email: 'a@example.com', email_verified: 'true' })).emailVerified).toBe(true);
    for (const claims of [{}, { email_verified: false }, { email_verified: 'false' }, { email_verified: 1 }, { email_verified: 'yes' }]) {
      expect((await claimsOf({ email: 'a@example.com', ...claims })).emailVerified).toBe(false);
    }
  });

  it('takes the name from name, then preferred_username, without control or invisible characters', async () => {
    expect((await claimsOf({ name: 'Carol\u202e Jones', preferred_username: 'cj' })).name).toBe('Carol Jones');
    expect((await claimsOf({ name: '  ', preferred_username: 'cj' })).name).toBe('cj');
    expect((await claimsOf({ name: 7 })).name).toBeUndefined();
  });

  it('refuses subjects that are too long or carry control characters, and tokens issued in the future (401)', async () => {
    for (const subject of ['x'.repeat(256), 'a\u0000b']) {
      await expect(claimsOf({}, undefined, subject)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const future = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience('blog-api').setSubject('s').setIssuedAt(Math.floor(Date.now() / 1000) + 120).setExpirationTime('5m').sign(privateKey);
    await expect(verifier().claims(future)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('carries issuer, subject, iat and exp', async () => {
    const claims = await claimsOf({}, undefined, 'abc');
    expect(claims).toMatchObject({ issuer: ISSUER, subject: 'abc', issuedAt: expect.any(Number), expiresAt: expect.any(Number) });
    expect(claims.expiresAt - claims.issuedAt).toBe(300);
  });

  it('keeps verifying with the keys it has when a refetch fails; an unknown kid is then 503', async () => {
    const v = verifier({ AUTH_JWKS_CACHE_MAX_AGE_MS: '1000', AUTH_JWKS_COOLDOWN_MS: '0' });
    const valid = await token({});
    await v.claims(valid);
    failing = true;
    try {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await v.claims(valid)).subject).toBe('sub-1');
      const unknown = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k2' }).setIssuer(ISSUER).setAudience('blog-api').setSubject('s').setIssuedAt().setExpirationTime('5m').sign(privateKey);
      await expect(v.claims(unknown)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      failing = false;
    }
  });

  it('a provider that was never reached: 503, not 401', async () => {
    const config = loadConfig({ AUTH_JWKS_URL: 'http://127.0.0.1:1/certs', AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: 'blog-api' });
    const v = new OidcTokenVerifier(config, {} as ExternalAccountsService);
    await expect(v.claims(await token({}))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
  });
});
