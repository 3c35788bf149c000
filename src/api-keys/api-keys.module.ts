import { Global, Module } from '@nestjs/common';
import { ApiKeyVerifier } from '../auth/credential-verifiers.js';
import { UsersModule } from '../users/users.module.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysResolver } from './api-keys.resolver.js';
import { ApiKeysService } from './api-keys.service.js';

/** Global: authentication (every transport) checks `blog_…` keys through ApiKeyVerifier. */
@Global()
@Module({
  imports: [UsersModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService, ApiKeysResolver, { provide: ApiKeyVerifier, useExisting: ApiKeysService }],
  exports: [ApiKeyVerifier, ApiKeysService],
})
export class ApiKeysModule {}
