import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { newTestService } from '../../../test/support/unit.js';
import { RateLimiter } from './rate-limiter.js';
import { SignInLimiter } from './sign-in-limiter.js';

// The counters behind every password check (sign-in, currentPassword): which keys, which limits.

describe('SignInLimiter', () => {
  let limiter: Mocked<RateLimiter>;
  let signIns: SignInLimiter;

  const build = async (env: Record<string, string>) => {
    const unit = await newTestService(SignInLimiter, { env: { RATE_LIMIT_WINDOW_S: '60', ...env } });
    signIns = unit.service;
    limiter = unit.mock(RateLimiter);
  };
  beforeEach(() => build({ RATE_LIMIT_AUTH_MAX: '5', RATE_LIMIT_ACCOUNT_MAX: '100' }));

  it('an attempt is refused at the limit of its (e-mail, address) pair or of its account, and counts against its address', async () => {
    await signIns.attempt('alice@example.com', '203.0.113.1');
    expect(limiter.refuseAtLimit.mock.calls).toEqual([
      ['auth-pair:203.0.113.1:alice@example.com', 5],
      ['auth-account:alice@example.com', 100],
    ]);
    expect(limiter.consume).toHaveBeenCalledWith('auth-ip:203.0.113.1', 5, 60);
  });

  it('a failure counts for the pair over the window and for the account over an hour, so other addresses still sign in', async () => {
    await signIns.failed('alice@example.com', '203.0.113.1');
    expect(limiter.countFailure.mock.calls).toEqual([
      ['auth-pair:203.0.113.1:alice@example.com', 60],
      ['auth-account:alice@example.com', 3600],
    ]);
    expect(limiter.consume).not.toHaveBeenCalled();
  });

  it('a limit of 0 (off) counts no failures for it', async () => {
    await build({ RATE_LIMIT_AUTH_MAX: '0', RATE_LIMIT_ACCOUNT_MAX: '0' });
    await signIns.failed('alice@example.com', '203.0.113.1');
    expect(limiter.countFailure).not.toHaveBeenCalled();
  });
});
