import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory.js';
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
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

bootstrap().catch((error: unknown) => {
  console.error('Start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
