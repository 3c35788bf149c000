import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { PROBLEM_CONTENT_TYPE } from '../common/errors/problem-details.js';

type Checks = Record<string, { status: string; [key: string]: unknown }>;

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
  ) {}

  /** 200 `{status: "ok", checks}` when the database answers; 503 problem+json naming what is down. */
  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability (503 when the database is down)' })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    try {
      const result = await this.health.check([() => this.db.pingCheck('database', { timeout: 2000 })]);
      return { status: 'ok', checks: result.details, uptimeSeconds: Math.round(process.uptime()) };
    } catch (error) {
      const details = ((error as { response?: { details?: Checks } }).response?.details ?? {}) as Checks;
      const down = Object.entries(details).filter(([, check]) => check.status !== 'up').map(([name]) => name);
      reply.status(503).header('content-type', PROBLEM_CONTENT_TYPE).header('retry-after', '5');
      return {
        type: '/problems/service-unavailable',
        title: 'Service Unavailable',
        status: 503,
        detail: `Unavailable: ${down.join(', ') || 'database'}`,
        instance: '/health',
        code: 'SERVICE_UNAVAILABLE',
        checks: Object.fromEntries(Object.entries(details).map(([name, check]) => [name, { status: check.status }])),
      };
    }
  }
}
