import { Global, Module } from '@nestjs/common';
import { AccountLookup } from '../auth/account-lookup.js';
import { MediaModule } from '../media/media.module.js';
import { UsersController } from './users.controller.js';
import { UserLoaders } from './users.loader.js';
import { UsersRepository } from './users.repository.js';
import { UserConnectionResolver, UsersResolver } from './users.resolver.js';
import { UsersService } from './users.service.js';

/** Global: the accounts every credential is checked against (AccountLookup) are its users. */
@Global()
@Module({
  imports: [MediaModule],
  controllers: [UsersController],
  providers: [
    UsersRepository,
    UsersService,
    UserLoaders,
    UsersResolver,
    UserConnectionResolver,
    { provide: AccountLookup, useExisting: UsersRepository },
  ],
  exports: [UsersService, UsersRepository, UserLoaders, AccountLookup],
})
export class UsersModule {}
