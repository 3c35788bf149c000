import { findPgbouncer } from './pgbouncer.js';

/** Says once, at the start of a run, which suites are skipped for want of a server. */
export default function announceSkippedSuites(): void {
  const missing = [
    ['TEST_DATABASE_URL', 'PostgreSQL'],
    ['TEST_REDIS_URL', 'Redis'],
  ].filter(([variable]) => !process.env[variable]);
  for (const [variable, server] of missing) {
    console.warn(`[tests] ${variable} is not set: the ${server} suites are skipped (set it, e.g. as in .ci/run, to run them).`);
  }
  if (process.env.TEST_DATABASES) console.warn(`[tests] TEST_DATABASES=${process.env.TEST_DATABASES}: the e2e suites run on these databases only.`);
  if (process.env.TEST_DATABASE_URL && !findPgbouncer()) {
    console.warn('[tests] pgbouncer is not installed: the connection pooler suite is skipped (Debian: apt-get install pgbouncer).');
  }
}
