import { JwtService } from '@nestjs/jwt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import type { Account, AccountLookup } from './account-lookup.js';
import { AuthService } from './auth.service.js';

const SECRET = 'a-unit-test-secret-a-unit-test-secret';

function setUp() {
  const jwt = new JwtService({ secret: SECRET });
  const accounts: AccountLookup = { findAccount: async (id: number): Promise<Account | null> => (id === 2 ? { id: 2, role: 'author', tokensValidAfter: null } : null) };
  const service = new AuthService(jwt, accounts, { jwtExpiresInS: 60 } as AppConfig);
  const verify = vi.spyOn(jwt, 'verifyAsync');
  const sign = (claims: object) => jwt.sign({ sub: '2', ...claims }, { algorithm: 'HS256' });
  return { service, verify, sign };
}

const seconds = () => Math.floor(Date.now() / 1000);

describe('AuthService: a token is verified once, and its expiry checked on every use', () => {
  afterEach(() => vi.useRealTimers());

  it('checks the signature of a token on its first use only', async () => {
    const { service, verify, sign } = setUp();
    const token = sign({ iat: seconds(), exp: seconds() + 60 });
    for (let i = 0; i < 3; i += 1) expect(await service.authenticate(`Bearer ${token}`)).toMatchObject({ id: 2, role: 'author' });
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('refuses a token once its exp has passed, although it was accepted before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { service, sign } = setUp();
    const token = sign({ iat: seconds(), exp: seconds() + 60 });
    await expect(service.authenticate(`Bearer ${token}`)).resolves.toMatchObject({ id: 2 });
    vi.setSystemTime(Date.now() + 59_000);
    await expect(service.authenticate(`Bearer ${token}`)).resolves.toMatchObject({ id: 2 });
    vi.setSystemTime(Date.now() + 1_000);
    await expect(service.authenticate(`Bearer ${token}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(service.authenticate(`Bearer ${token}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('never answers a tampered token from what its original left behind', async () => {
    const { service, sign } = setUp();
    const token = sign({ iat: seconds(), exp: seconds() + 60 });
    await service.authenticate(`Bearer ${token}`);
    const [header, payload, signature] = token.split('.');
    const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: '1' })).toString('base64url');
    await expect(service.authenticate(`Bearer ${header}.${changed}.${signature}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(service.authenticate(`Bearer ${token.slice(0, -2)}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('checks a token with nbf, or without exp, on every use', async () => {
    const { service, verify, sign } = setUp();
    const notBefore = sign({ iat: seconds() - 10, nbf: seconds() - 5, exp: seconds() + 60 });
    const forever = sign({ iat: seconds() });
    for (let i = 0; i < 2; i += 1) {
      await service.authenticate(`Bearer ${notBefore}`);
      await service.authenticate(`Bearer ${forever}`);
    }
    expect(verify).toHaveBeenCalledTimes(4);
  });
});
