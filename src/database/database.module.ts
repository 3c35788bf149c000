import { type DynamicModule, Global, Logger, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { Dialect } from '../common/persistence/dialect.js';
import { ReadRouter } from '../common/persistence/read-router.js';
import { Sql } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { QueryCountingLogger } from '../metrics/query-counting.logger.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { runMigrations, withStartupLock } from './migration-runner.js';
import { PostgresDialect } from './postgres.dialect.js';
import { ReadRoutingInterceptor } from './replicas/read-routing.interceptor.js';
import { ReplicaSet } from './replicas/replica-set.js';
import { WrittenPositions } from './replicas/written-positions.js';
import { SearchLanguage } from './search-language.js';
import { SqliteDialect } from './sqlite.dialect.js';

const logger = new Logger('Database');

/** The DataSource's options, and DATABASE_DIRECT_URL for the migrations (read by dataSourceFactory, not by TypeORM). */
type StartupOptions = DataSourceOptions & { directUrl?: string };

/**
 * Applies the pending migrations under the start-up lock: through DATABASE_DIRECT_URL when it
 * is set (a DataSource of two connections, closed after), else through the service's own.
 */
async function migrate(dataSource: DataSource, options: DataSourceOptions, directUrl: string | undefined): Promise<string[]> {
  if (directUrl === undefined) return withStartupLock(dataSource, () => runMigrations(dataSource));
  const direct = await new DataSource({ ...options, url: directUrl, poolSize: 2 } as DataSourceOptions).initialize();
  try {
    return await withStartupLock(direct, () => runMigrations(direct));
  } finally {
    await direct.destroy();
  }
}

async function dataSourceFactory(startup?: DataSourceOptions): Promise<DataSource> {
  const { directUrl, ...options } = startup as StartupOptions;
  const dataSource = await new DataSource(options as DataSourceOptions).initialize();
  const applied = await migrate(dataSource, options as DataSourceOptions, directUrl);
  if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
  return dataSource;
}

@Global()
@Module({
  providers: [
    {
      // The one place that asks which database it is: everything else asks the dialect.
      provide: Dialect,
      inject: [getDataSourceToken(), AppConfig],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        dataSource.options.type === 'postgres' ? new PostgresDialect(dataSource, config.databaseDirectUrl) : new SqliteDialect(dataSource),
    },
    TransactionRunner,
    Sql,
    SearchLanguage,
    WrittenPositions,
    ReplicaSet,
    { provide: ReadRouter, useExisting: ReplicaSet },
    ReadRoutingInterceptor,
  ],
  exports: [Dialect, TransactionRunner, Sql, ReplicaSet, ReadRoutingInterceptor],
})
export class DatabaseModule {
  /** `entities`: every entity class of the application (ResourceCatalog.entities), exactly. */
  static forRoot(entities: readonly (new () => object)[]): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig, MetricsService],
          useFactory: (config: AppConfig, metrics: MetricsService) => ({
            ...buildDataSourceOptions(config.database, {
              entities,
              poolSize: config.dbPoolSize,
              // Counts every statement sent: db_queries_total.
              logger: new QueryCountingLogger(() => metrics.recordDbQuery()),
            }),
            retryAttempts: 2,
            retryDelay: 1000,
            directUrl: config.databaseDirectUrl,
          }),
          dataSourceFactory,
        }),
      ],
    };
  }
}
