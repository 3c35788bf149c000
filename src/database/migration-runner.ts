import type { DataSource, QueryRunner } from 'typeorm';

/** An arbitrary constant shared by every instance: the key of the start-up lock. */
const STARTUP_LOCK_KEY = 7_236_481_905;

/**
 * Runs `work` while holding a database-wide lock. On PostgreSQL, instances starting together
 * serialize on an advisory lock, so exactly one applies each migration or seeds and the others
 * find nothing left to do. A SQLite file is opened by one process, so no lock is needed there.
 *
 * The lock is a transaction's (pg_advisory_xact_lock, held by an open transaction on a
 * connection of its own while `work` runs on others): a transaction pooler keeps a server
 * connection for a transaction, whereas a session lock would stay on whichever server connection
 * took it, for another client to find (and its unlock go to another, which holds nothing). It
 * ends with the transaction, or with the connection if this process dies.
 */
export async function withStartupLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'postgres') return work();
  const lockRunner = dataSource.createQueryRunner() as QueryRunner & { releasePostgresConnection?: (error?: Error) => Promise<void> };
  let broken: Error | undefined;
  try {
    await lockRunner.startTransaction();
    await lockRunner.query('SELECT pg_advisory_xact_lock($1)', [STARTUP_LOCK_KEY]);
    return await work();
  } finally {
    // Nothing was written on this connection: ending the transaction releases the lock.
    if (lockRunner.isTransactionActive) await lockRunner.rollbackTransaction().catch((error: unknown) => (broken = error as Error));
    // A connection whose ROLLBACK failed may still hold the lock: dropped (the server ends it), never reused.
    if (broken && lockRunner.releasePostgresConnection) await lockRunner.releasePostgresConnection(broken);
    else await lockRunner.release();
  }
}

export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'all' });
  return applied.map((migration) => migration.name);
}
