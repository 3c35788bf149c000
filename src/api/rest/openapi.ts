import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PROBLEM_MEDIA_TYPE } from '../../common/openapi/api-docs.decorators.js';
import { completeDocument } from '../../common/openapi/document.js';
import { headerRef, PROBLEM_SCHEMA, schemaRef } from '../../common/openapi/schemas.js';
import { ResourceCatalog } from '../../common/resource/resource-catalog.js';
import type { AppConfig } from '../../config/app-config.js';
import { describeEventLog } from '../../event-log/event-list.js';
import { METRICS_PATH } from '../../metrics/metrics.module.js';
import { describeWebhookTypes } from '../../webhooks/dto/update-webhook.dto.js';
import { describePostLocales } from '../../posts/dto/update-post.dto.js';

/** GET /metrics, a plain Fastify route: no credential is read, no database is asked. */
function metricsPath(): OpenAPIObject['paths'] {
  const problem = (description: string, headers = {}) => ({ description, headers, content: { [PROBLEM_MEDIA_TYPE]: { schema: schemaRef('Problem', PROBLEM_SCHEMA) } } });
  return {
    [METRICS_PATH]: {
      get: {
        operationId: 'Metrics_get',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['operations'],
        security: [{}],
        responses: {
          200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
          405: problem('Method Not Allowed', { Allow: headerRef('Allow') }),
          429: problem('Too Many Requests', { 'Retry-After': headerRef('Retry-After') }),
          500: problem('Internal Server Error'),
        },
      },
    },
  };
}

/**
 * The OpenAPI document, generated from the controllers' decorators and completed with what every
 * route answers (completeDocument): UI at /docs, JSON at /docs-json.
 */
export function setupOpenApi(app: NestFastifyApplication, appConfig: Pick<AppConfig, 'metricsEnabled' | 'supportedLocales'>): void {
  const config = new DocumentBuilder()
    .setTitle('Blog service')
    .setDescription(
      'Posts, users and comments. Every GET negotiates JSON, HAL, XML or HTML by Accept; errors are ' +
        'application/problem+json (RFC 9457). The same data is served by GraphQL at /graphql.',
    )
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const catalog = app.get(ResourceCatalog);
  const document = () => {
    const completed = completeDocument(SwaggerModule.createDocument(app, config), appConfig.metricsEnabled ? metricsPath() : {});
    // The event types, refs and snapshots are this application's resources' (its catalog).
    describeEventLog(completed, catalog);
    describeWebhookTypes(completed, catalog);
    describePostLocales(completed, appConfig.supportedLocales);
    return completed;
  };
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Blog service API',
  });
}
