import { Global, Module } from '@nestjs/common';
import { AuthorizationPolicy } from './authorization-policy.js';

/** The authorization policy, available to every feature's service. */
@Global()
@Module({ providers: [AuthorizationPolicy], exports: [AuthorizationPolicy] })
export class PolicyModule {}
