import { createRequire } from 'node:module';

/** The better-sqlite3 module this Node runs: two majors are installed, each loaded only where it works. */
export type SqliteDriver = typeof import('better-sqlite3');

const require = createRequire(import.meta.url);

/**
 * better-sqlite3 12 (node::ObjectWrap) aborts the process on Node ≥ 24.19 when a garbage
 * collection outside JavaScript finalizes a statement (`RemoveEnvironmentCleanupHook:
 * (env) != nullptr`); 13 (Node-API) does not, but needs Node ≥ 22 and crashes on Node 20. The
 * package `better-sqlite3-napi` is 13 under another name, so both install side by side.
 */
export function loadSqliteDriver(major = Number(process.versions.node.split('.')[0])): SqliteDriver {
  return require(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3') as SqliteDriver;
}
