import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { UsersModule } from '../users/users.module.js';
import { TokensController } from './tokens.controller.js';
import { TokensResolver } from './tokens.resolver.js';
import { TokensService } from './tokens.service.js';

/** Sign-in: POST /tokens and the createToken mutation. */
@Module({
  imports: [AuthModule, UsersModule],
  controllers: [TokensController],
  providers: [TokensService, TokensResolver],
})
export class TokensModule {}
