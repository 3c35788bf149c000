import { Global, Module } from '@nestjs/common';
import { AuthorizationPolicy } from './authorization-policy.js';
import { ReadPolicy } from './read-policy.js';

/** The authorization policy (who may change what) and the read policy (who may see what), for every feature. */
@Global()
@Module({ providers: [AuthorizationPolicy, ReadPolicy], exports: [AuthorizationPolicy, ReadPolicy] })
export class PolicyModule {}
