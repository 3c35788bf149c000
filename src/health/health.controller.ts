import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { ERROR_CODES } from '../common/errors/error-code.js';
import { ApiJson } from '../common/openapi/api-docs.decorators.js';
import { HEALTH_PROBLEM_SCHEMA, HEALTH_SCHEMA, headerRef, schemaRef } from '../common/openapi/schemas.js';
import { type ProblemDetails, toProblemDetails } from '../common/errors/problem-details.js';
import { renderProblem } from '../common/errors/problem-renderer.js';
import { varyOnAccept } from '../common/http/vary.js';
import { REDIS } from '../redis/redis.module.js';
import { ReplicaSet } from '../database/replicas/replica-set.js';

type Checks = Record<string, { status: string; [key: string]: unknown }>;

const EXAMPLE_503: ProblemDetails & { checks: Checks } = {
  ...toProblemDetails({ code: 'SERVICE_UNAVAILABLE', ...ERROR_CODES.SERVICE_UNAVAILABLE, detail: 'Unavailable: database', unexpected: false }, '/health'),
  checks: { database: { status: 'down' }, redis: { status: 'up' } },
};

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly replicas: ReplicaSet,
  ) {}

  /**
   * The read replicas as last polled (each up, lagging or down): reported, never a 503, since
   * reads go to the primary when none qualifies. The check is up while one replica is.
   */
  private replicasCheck(): Checks {
    if (!this.replicas.enabled) return {};
    const replicas = this.replicas.status();
    return { replicas: { status: replicas.some((replica) => replica.status === 'up') ? 'up' : 'down', replicas } };
  }

  /** Redis is optional for serving: its state is reported, but only the database decides 200/503. */
  private async redisCheck(): Promise<Checks> {
    if (!this.redis) return {};
    const started = Date.now();
    const up = await Promise.race([
      this.redis.ping().then(() => true, () => false),
      new Promise<boolean>((resolve) => setTimeout(resolve, 1000, false).unref()),
    ]);
    return { redis: up ? { status: 'up', responseTime: Date.now() - started } : { status: 'down' } };
  }

  /** 200 `{status: "ok", checks}` when the database answers; 503, a problem naming what is down. */
  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability (503 when the database is down)' })
  // The parameter @Headers('accept') implies, as optional: the 200 is JSON whatever it says.
  @ApiHeader({ name: 'accept', required: false, schema: { type: 'string' }, description: 'The format of a 503: problem+json (default), problem+xml or HTML' })
  @ApiJson(200, 'The database answers; each check with its state', schemaRef('Health', HEALTH_SCHEMA))
  @ApiResponse({
    status: 503,
    description: 'The database is unreachable; the checks say what is down',
    headers: { 'Retry-After': headerRef('Retry-After') },
    content: {
      'application/problem+json': { schema: schemaRef('HealthProblem', HEALTH_PROBLEM_SCHEMA), example: EXAMPLE_503 },
      'application/problem+xml': { schema: { type: 'string' } },
      'text/html': { schema: { type: 'string' } },
    },
  })
  async check(@Res({ passthrough: true }) reply: FastifyReply, @Headers('accept') accept?: string): Promise<unknown> {
    try {
      const [result, redis] = await Promise.all([
        this.health.check([() => this.db.pingCheck('database', { timeout: 2000 })]),
        this.redisCheck(),
      ]);
      return { status: 'ok', checks: { ...result.details, ...redis, ...this.replicasCheck() }, uptimeSeconds: Math.round(process.uptime()) };
    } catch (error) {
      const details = {
        ...((error as { response?: { details?: Checks } }).response?.details ?? {}),
        ...(await this.redisCheck()),
        ...this.replicasCheck(),
      } as Checks;
      const down = Object.entries(details).filter(([, check]) => check.status !== 'up').map(([name]) => name);
      // `down` names every failing dependency; only the database's failure makes this a 503.
      const problem: ProblemDetails & { checks: Checks } = {
        ...toProblemDetails(
          { code: 'SERVICE_UNAVAILABLE', ...ERROR_CODES.SERVICE_UNAVAILABLE, detail: `Unavailable: ${down.join(', ') || 'database'}`, unexpected: false },
          '/health',
        ),
        checks: Object.fromEntries(Object.entries(details).map(([name, check]) => [name, { status: check.status }])),
      };
      // In the format Accept asks for, like every other error.
      const { contentType, body } = renderProblem(problem, accept);
      reply.status(503).header('content-type', contentType).header('retry-after', '5');
      varyOnAccept(reply);
      return body;
    }
  }
}
