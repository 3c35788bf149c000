import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { ExternalTokenVerifier } from '../auth/credential-verifiers.js';
import { ExternalAccountsService } from './external-accounts.service.js';
import { ExternalIdentitiesRepository } from './external-identities.repository.js';
import { OidcTokenVerifier } from './oidc-token.verifier.js';

/**
 * Single sign-on through an OpenID Connect provider, on when AUTH_JWKS_URL is set: provides
 * AuthService's ExternalTokenVerifier globally. Off, it is an empty module and such tokens
 * are refused.
 */
@Module({})
export class OidcModule {
  static forRoot(config: AppConfig): DynamicModule {
    if (!config.oidc) return { module: OidcModule };
    return {
      module: OidcModule,
      global: true,
      providers: [ExternalIdentitiesRepository, ExternalAccountsService, { provide: ExternalTokenVerifier, useClass: OidcTokenVerifier }],
      exports: [ExternalTokenVerifier],
    };
  }
}
