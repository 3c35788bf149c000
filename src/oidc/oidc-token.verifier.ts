import { Injectable, Logger } from '@nestjs/common';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import type { Role } from '../common/actor.js';
import { DomainError } from '../common/errors/domain-error.js';
import { normalizeEmail } from '../common/validation/transforms.js';
import { AppConfig, type OidcConfig } from '../config/app-config.js';
import { ExternalTokenVerifier, type VerifiedCredential } from '../auth/credential-verifiers.js';
import { ExternalAccountsService, type ExternalClaims } from './external-accounts.service.js';

/** Clocks of the provider and of this service may differ by this much (seconds). */
export const CLOCK_TOLERANCE_S = 30;
const ALGORITHMS = ['RS256', 'ES256'];
const SUBJECT_MAX = 255;
const EMAIL_MAX = 320;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Control characters, and invisible formatting ones (bidi overrides, zero-width characters). */
const UNSAFE = /[\p{Cc}\p{Cf}]/u;

/** The provider's keys could not be fetched (unreachable, timed out, not a key set). */
class ProviderUnavailable extends Error {}

/**
 * Tokens of the OpenID Connect provider (AUTH_JWKS_URL): RS256 or ES256 JWTs signed with one
 * of its published keys, issued by AUTH_ISSUER for AUTH_AUDIENCE. AuthService sends every
 * JWT not marked HS256 here (HS256 ones are ours, checked with JWT_SECRET).
 */
@Injectable()
export class OidcTokenVerifier extends ExternalTokenVerifier {
  private readonly settings: OidcConfig;
  private readonly keys: JWTVerifyGetKey;

  constructor(
    config: AppConfig,
    private readonly accounts: ExternalAccountsService,
  ) {
    super();
    this.settings = config.oidc!;
    this.keys = providerKeys(this.settings);
  }

  async verify(token: string): Promise<VerifiedCredential> {
    return this.accounts.actorFor(await this.claims(token));
  }

  /** The verified claims this service uses; 401 for any token that is not valid, 503 when the keys are out of reach. */
  async claims(token: string): Promise<ExternalClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['sub', 'iat', 'exp'],
      }));
    } catch (error) {
      throw refusal(error);
    }
    const { sub, iat, exp } = payload as { sub: unknown; iat: number; exp: number };
    if (typeof sub !== 'string' || sub === '' || sub.length > SUBJECT_MAX || UNSAFE.test(sub)) throw invalid('the "sub" claim is not a usable subject');
    if (iat > Date.now() / 1000 + CLOCK_TOLERANCE_S) throw invalid('the "iat" claim is in the future');
    return {
      issuer: this.settings.issuer,
      subject: sub,
      issuedAt: Math.floor(iat),
      expiresAt: exp,
      email: emailOf(payload.email),
      // Only an explicit yes (Keycloak, Auth0, Google, Okta send the boolean; some send the string).
      emailVerified: payload.email_verified === true || payload.email_verified === 'true',
      name: nameOf(payload.name) ?? nameOf(payload.preferred_username),
      role: this.roleOf(payload),
    };
  }

  /**
   * From the roles claim (an array; a dotted name also reaches into objects, `realm_access.roles`):
   * admin when it holds AUTH_ADMIN_ROLE, else editor or moderator when it holds that very name
   * (PROVIDER_ROLES, the widest first), else author.
   */
  private roleOf(payload: JWTPayload): Role {
    const { rolesClaim, adminRole } = this.settings;
    let roles: unknown = payload[rolesClaim];
    if (roles === undefined && rolesClaim.includes('.')) {
      roles = rolesClaim.split('.').reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined), payload);
    }
    if (!Array.isArray(roles)) return 'author';
    if (roles.includes(adminRole)) return 'admin';
    return PROVIDER_ROLES.find((role) => roles.includes(role)) ?? 'author';
  }
}

/** The roles a provider grants by their own names (the admin role has its setting, AUTH_ADMIN_ROLE), the widest first. */
const PROVIDER_ROLES: readonly Role[] = ['editor', 'moderator'];

/**
 * The provider's key set, cached (AUTH_JWKS_CACHE_MAX_AGE_MS). A token with an unknown `kid`
 * refetches it at most once per AUTH_JWKS_COOLDOWN_MS; a failed fetch also waits that long
 * before the next, so neither random kids nor an outage make every request call the provider.
 * During an outage the keys fetched last still verify (a token under an unknown key is a 503).
 */
function providerKeys(settings: OidcConfig): JWTVerifyGetKey {
  const logger = new Logger('SingleSignOn');
  let failedAt = -Infinity;
  const guardedFetch = async (url: string, init: RequestInit): Promise<Response> => {
    if (Date.now() - failedAt < settings.jwksCooldownMs) throw new ProviderUnavailable('The identity provider\'s keys were out of reach a moment ago');
    try {
      const response = await fetch(url, init);
      if (response.status !== 200) {
        failedAt = Date.now();
        logger.warn(`The identity provider's key set answered ${response.status} (${settings.jwksUrl.href})`);
      }
      return response;
    } catch (error) {
      failedAt = Date.now();
      logger.warn(`The identity provider's key set is out of reach (${settings.jwksUrl.href}): ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  };
  const remote = createRemoteJWKSet(settings.jwksUrl, {
    cooldownDuration: settings.jwksCooldownMs,
    cacheMaxAge: settings.jwksCacheMaxAgeMs,
    timeoutDuration: settings.jwksTimeoutMs,
    [customFetch]: guardedFetch,
  });
  // Once fetched, keys keep verifying what they signed while the provider is out of reach.
  let stale: { of: unknown; keys: JWTVerifyGetKey } | undefined;
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      // A verdict on the token (no key matched, several did, unusable key), not a failure of the provider.
      if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error.code === errors.JOSEError.code)) throw error;
      const last = remote.jwks();
      if (last) {
        if (stale?.of !== last) stale = { of: last, keys: createLocalJWKSet(last) };
        try {
          return await stale.keys(header, token);
        } catch (staleError) {
          if (!(staleError instanceof errors.JWKSNoMatchingKey)) throw staleError;
        }
      }
      throw new ProviderUnavailable('The identity provider\'s keys could not be fetched', { cause: error });
    }
  };
}

function refusal(error: unknown): DomainError {
  if (error instanceof ProviderUnavailable) {
    return new DomainError('SERVICE_UNAVAILABLE', 'The identity provider\'s signing keys are out of reach; try again shortly', undefined, { 'retry-after': '5' });
  }
  if (error instanceof errors.JWTExpired) return invalid('it has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return invalid(`the "${error.claim}" claim is not acceptable (${error.reason})`);
  if (error instanceof errors.JWKSNoMatchingKey) return invalid('no key of the identity provider matches it');
  if (error instanceof errors.JOSEAlgNotAllowed) return invalid('its algorithm is not RS256 or ES256');
  return invalid('it is malformed or its signature does not verify');
}

const invalid = (why: string) => DomainError.unauthenticated(`The identity provider's token was refused: ${why}`);

function emailOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = normalizeEmail(value);
  return email.length <= EMAIL_MAX && EMAIL.test(email) && !UNSAFE.test(email) ? email : undefined;
}

function nameOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.normalize('NFKC').replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  return name === '' ? undefined : name;
}
