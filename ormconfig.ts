import { DataSource } from 'typeorm';
import { ResourceCatalog } from './src/common/resource/resource-catalog.js';
import { loadConfig } from './src/config/app-config.js';
import { buildDataSourceOptions } from './src/database/data-source-options.js';
import { RESOURCES } from './src/resources.js';

const config = loadConfig();

/**
 * The DataSource of the TypeORM CLI (`npm run migration:generate|run|revert`), from the same
 * settings: DATABASE_DIRECT_URL when set, as the service's own migrations.
 */
export default new DataSource(
  buildDataSourceOptions(config.databaseDirectUrl ? { type: 'postgres', url: config.databaseDirectUrl } : config.database, { entities: new ResourceCatalog(RESOURCES).entities }),
);
