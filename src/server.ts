import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from './config/app-config.js';

async function bootstrap(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  // Tracing must start before the application's modules are loaded (its instrumentations patch
  // modules as they load): both are imported here, the SDK only when tracing is configured.
  const tracing = config.otelExporterOtlpEndpoint === undefined ? undefined : (await import('./tracing/tracing.js')).startTracing(config);
  const { createApp } = await import('./app.factory.js');
  const app = await createApp(config);
  const logger = new Logger('Main');
  if (config.jwtSecretGenerated) {
    logger.warn('JWT_SECRET is not set: using a random secret, so tokens end with this process');
  }
  await app.listen(config.port, config.host);
  logger.log(`Listening on ${await app.getUrl()} (database: ${config.database.type})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: finishing requests in flight, then stopping`);
    const force = setTimeout(() => {
      logger.error(`Shutdown took longer than ${config.shutdownTimeoutMs} ms; exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    // Node closes idle keep-alive connections once, when closing starts; a connection whose
    // request was in flight then would stay open until its keep-alive timeout. Sweep them.
    const server = app.getHttpServer() as import('node:http').Server;
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    await app.close();
    clearInterval(sweep);
    // The spans of the last requests are sent before the process ends.
    await tracing?.shutdown().catch((error: unknown) => logger.warn(`Tracing shutdown: ${error instanceof Error ? error.message : String(error)}`));
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

bootstrap().catch((error: unknown) => {
  console.error('Start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
