import { DataSource } from 'typeorm';
// Loads every feature module, so that each resource (and its entity) is declared.
import './src/app.module.js';
import { loadConfig } from './src/config/app-config.js';
import { buildDataSourceOptions } from './src/database/data-source-options.js';

const config = loadConfig();

/**
 * The DataSource of the TypeORM CLI (`npm run migration:generate|run|revert`), from the same
 * settings: DATABASE_DIRECT_URL when set, as the service's own migrations.
 */
export default new DataSource(buildDataSourceOptions(config.databaseDirectUrl ? { type: 'postgres', url: config.databaseDirectUrl } : config.database));
