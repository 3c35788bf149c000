import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Actor } from '../common/actor.js';

export const REQUIRES_SIGN_IN = 'requiresSignIn';

/**
 * The route needs a valid bearer token (401 without one); the OpenAPI document says so. Routes
 * without it accept anonymous callers. Authorization is the services' job.
 */
export const SignedIn = () => applyDecorators(SetMetadata(REQUIRES_SIGN_IN, true), ApiBearerAuth('bearer'));

export interface RequestWithActor {
  actor?: Actor | null;
}

/** The authenticated actor of an HTTP request, or null when anonymous. */
export const CurrentActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Actor | null =>
    context.switchToHttp().getRequest<RequestWithActor>().actor ?? null,
);
