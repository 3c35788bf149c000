import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** The OpenAPI document, generated from the controllers' decorators: UI at /docs, JSON at /docs-json. */
export function setupOpenApi(app: NestFastifyApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Blog service')
    .setDescription(
      'Posts, users and comments. Every GET negotiates JSON, HAL, XML or HTML by Accept; errors are ' +
        'application/problem+json (RFC 9457). The same data is served by GraphQL at /graphql.',
    )
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, config), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Blog service API',
  });
}
