import type { DataSource } from 'typeorm';

/** An arbitrary constant shared by every instance: the key of the start-up lock. */
const STARTUP_LOCK_KEY = 7_236_481_905;

/**
 * Runs `work` while holding a database-wide lock. On PostgreSQL, instances starting together
 * serialize on an advisory lock, so exactly one applies each migration or seeds and the others
 * find nothing left to do. A SQLite file is opened by one process, so no lock is needed there.
 */
export async function withStartupLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'postgres') return work();
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query('SELECT pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
    return await work();
  } finally {
    await lockRunner.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]).catch(() => undefined);
    await lockRunner.release();
  }
}

export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'all' });
  return applied.map((migration) => migration.name);
}
