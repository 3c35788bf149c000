import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../common/errors/domain-error.js';
import { REQUIRES_SIGN_IN, type RequestWithActor } from './auth.decorators.js';
import { AuthService } from './auth.service.js';

/**
 * Authenticates the bearer token of every HTTP request (a bad token is 401 even on public
 * routes) and enforces @SignedIn(). GraphQL and WebSocket authenticate in their context.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithActor>();
    request.actor = await this.auth.authenticate(request.headers.authorization);
    const required = this.reflector.getAllAndOverride<boolean>(REQUIRES_SIGN_IN, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (required && !request.actor) throw DomainError.unauthenticated();
    return true;
  }
}
