import { type DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { ExternalTokenVerifier } from '../auth/credential-verifiers.js';
import { ExternalAccountsService } from './external-accounts.service.js';
import { ExternalIdentitiesRepository } from './external-identities.repository.js';

/**
 * Single sign-on through an OpenID Connect provider, on when AUTH_JWKS_URL is set: provides
 * AuthService's ExternalTokenVerifier globally. Off, it provides only the identities' repository
 * and such tokens are refused. The verifier (and jose with it) is loaded only when on.
 */
@Module({})
export class OidcModule {
  static forRoot(config: AppConfig): DynamicModule {
    // The identities linked so far stay readable (a user's personal-data export) with sign-on off.
    if (!config.oidc) return { module: OidcModule, global: true, providers: [ExternalIdentitiesRepository], exports: [ExternalIdentitiesRepository] };
    return {
      module: OidcModule,
      global: true,
      providers: [
        ExternalIdentitiesRepository,
        ExternalAccountsService,
        {
          provide: ExternalTokenVerifier,
          inject: [AppConfig, ExternalAccountsService],
          useFactory: async (appConfig: AppConfig, accounts: ExternalAccountsService) => new (await import('./oidc-token.verifier.js')).OidcTokenVerifier(appConfig, accounts),
        },
      ],
      exports: [ExternalTokenVerifier, ExternalIdentitiesRepository],
    };
  }
}
