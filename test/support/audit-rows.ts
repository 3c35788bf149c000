import { DataSource } from 'typeorm';
import type { DatabaseKind } from './databases.js';
import type { TestApp } from './test-app.js';

export interface AuditRows {
  /** How many. */
  count: number;
  /** How old the newest is, in seconds; each next one a second older (default 0). */
  ageSeconds?: number;
  actorId?: number | null;
  action?: string;
  resourceType?: string;
  /** Each row's resource id: its number in the series (1…count) unless given. */
  resourceId?: number;
}

/**
 * Appends `count` audit entries in one statement (a series: generate_series on PostgreSQL, a
 * recursive CTE on SQLite), one second apart going back from `ageSeconds` ago: for the tests
 * that need many, or old, entries.
 */
export async function insertAuditRows(app: TestApp, kind: DatabaseKind, rows: AuditRows): Promise<void> {
  const { count, ageSeconds = 0, actorId = null, action = 'posts.update', resourceType = 'post', resourceId } = rows;
  const values = [actorId, actorId === null ? 'system' : 'token', action, resourceType];
  const resource = resourceId === undefined ? 'g' : String(Number(resourceId));
  const dataSource = app.app.get(DataSource);
  if (kind === 'postgres') {
    await dataSource.query(
      `INSERT INTO audit_entries (at, actor_id, actor_credential, action, resource_type, resource_id, changes)
       SELECT now() - make_interval(secs => ${Number(ageSeconds)} + g), $1, $2, $3, $4, ${resource}, '{"title":{"from":"a","to":"b"}}'
       FROM generate_series(1, ${Number(count)}) AS g`,
      values,
    );
    return;
  }
  await dataSource.query(
    `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${Number(count)})
     INSERT INTO audit_entries (at, actor_id, actor_credential, action, resource_type, resource_id, changes)
     SELECT strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || (${Number(ageSeconds)} + g) || ' seconds'), ?, ?, ?, ?, ${resource}, '{"title":{"from":"a","to":"b"}}' FROM s`,
    values,
  );
}
