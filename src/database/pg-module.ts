import { createRequire } from 'node:module';

type Pg = typeof import('pg').default;

const require = createRequire(import.meta.url);
let pg: Pg | undefined;

/**
 * pg, loaded the first time PostgreSQL is used (TypeORM loads it for its driver likewise): a
 * service on SQLite never loads it. Required (it is CommonJS), so its callers stay synchronous.
 */
export const loadPg = (): Pg => (pg ??= require('pg') as Pg);
