import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, type Observable, throwError } from 'rxjs';
import { readRoute } from '../../common/persistence/read-route.js';
import { ReplicaSet } from './replica-set.js';

/** The event feed and its replay read the outbox, whose order only the primary tells exactly. */
const PRIMARY_ONLY_PREFIX = '/events';

/**
 * REST's side of the read replicas (installed by createApp only when DATABASE_REPLICA_URLS is
 * set): an anonymous GET or HEAD runs with a read route, so its plain reads may go to a replica;
 * a write, once done, leaves its commit position for the client's next reads (read-your-writes).
 * A response-cache miss that will be kept reads from the primary: a lagging replica could
 * otherwise store an answer older than an invalidation.
 */
@Injectable()
export class ReadRoutingInterceptor implements NestInterceptor {
  constructor(private readonly replicas: ReplicaSet) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const remember = () => from(this.replicas.rememberWrite(request.ip));
      return next.handle().pipe(
        mergeMap((value) => remember().pipe(mergeMap(() => [value]))),
        catchError((error: unknown) => remember().pipe(mergeMap(() => throwError(() => error)))),
      );
    }
    if (request.headers.authorization !== undefined || request.cacheKey !== null || (request.routeOptions.url ?? '').startsWith(PRIMARY_ONLY_PREFIX)) {
      return next.handle();
    }
    // Nest binds the handler to the async context in which handle() is called: inside the route.
    return from(this.replicas.routeFor(request.ip)).pipe(mergeMap((route) => (route ? readRoute.run(route, () => next.handle()) : next.handle())));
  }
}
