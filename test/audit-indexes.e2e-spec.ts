import { DataSource } from 'typeorm';
import { beforeAll, expect, it } from 'vitest';
import { AUDIT_ACTION_NAMES, AUDIT_RESOURCE_TYPES } from '../src/audit/audit-actions.js';
import { AuditEntriesRepository, type AuditFilter } from '../src/audit/audit-entries.repository.js';
import type { PageRequest } from '../src/common/pagination/cursor.js';
import { useApp } from './support/fixture.js';
import { describeEachDatabase } from './support/test-app.js';

const ROWS = 200_000;
const ACTORS = 500;
// Few ids: each resource has its thousand entries or so, as a busy post does.
const RESOURCE_IDS = 20;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/**
 * Each filter of GET /audit (and the retention's pruning) is served by an index of
 * audit_entries that also gives the order, at a size where a scan and sort would show: the
 * statements the repository sends, explained by the database itself after ANALYZE.
 */
describeEachDatabase('audit log indexes', (kind) => {
  const app = useApp(kind, { signIn: [], timeout: 120_000 });
  const dataSource = () => app.app.get(DataSource);
  const statements: { text: string; params: unknown[] }[] = [];

  beforeAll(async () => {
    const pick = (values: readonly string[], g: string) => `CASE ${g} % ${values.length} ${values.map((value, index) => `WHEN ${index} THEN '${value}'`).join(' ')} END`;
    const columns = (g: string, at: string) =>
      `${at}, 1 + ${g} % ${ACTORS}, 'token', ${pick(AUDIT_ACTION_NAMES, g)}, ${pick(AUDIT_RESOURCE_TYPES, `(${g} / 7)`)}, 1 + ${g} % ${RESOURCE_IDS}, '{}'`;
    const insert = 'INSERT INTO audit_entries (at, actor_id, actor_credential, action, resource_type, resource_id, changes)';
    if (kind === 'postgres') {
      // In slices: the service's pool stops a statement after 2 s.
      for (let start = 1; start <= ROWS; start += 25_000) {
        await dataSource().query(`${insert} SELECT ${columns('g', "now() - make_interval(secs => g)")} FROM generate_series(${start}, ${Math.min(ROWS, start + 24_999)}) AS g`);
      }
      await dataSource().query('ANALYZE audit_entries');
    } else {
      await dataSource().query(
        `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${ROWS}) ${insert} SELECT ${columns('g', "strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || g || ' seconds')")} FROM s`,
      );
      await dataSource().query('ANALYZE');
    }
    // What the repository sends, as it sends it.
    const logger = dataSource().logger;
    const logQuery = logger.logQuery.bind(logger);
    logger.logQuery = (text, params) => {
      statements.push({ text, params: (params ?? []) as unknown[] });
      return logQuery(text, params);
    };
  }, 120_000);

  /** The statement `read` sends (the last one it sent). */
  async function statementOf(read: (repository: AuditEntriesRepository) => Promise<unknown>) {
    statements.length = 0;
    await read(app.app.get(AuditEntriesRepository));
    expect(statements.length).toBeGreaterThan(0);
    return statements[statements.length - 1];
  }

  /** The indexes the plan uses, and whether it sorts or scans the table. */
  async function planOf({ text, params }: { text: string; params: unknown[] }): Promise<{ indexes: string[]; sorts: boolean; scans: boolean }> {
    if (kind === 'postgres') {
      const [row] = await dataSource().query<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(`EXPLAIN (FORMAT JSON) ${text}`, params);
      const nodes = nodesOf(row['QUERY PLAN'][0].Plan);
      return {
        indexes: nodes.flatMap((node) => (node['Index Name'] ? [node['Index Name']] : [])),
        sorts: nodes.some((node) => /Sort/.test(node['Node Type'])),
        scans: nodes.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'audit_entries'),
      };
    }
    const rows = await dataSource().query<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${text}`, params);
    const details = rows.map((row) => row.detail);
    return {
      indexes: details.flatMap((detail) => /USING (?:COVERING )?INDEX (\w+)/.exec(detail)?.[1] ?? []),
      sorts: details.some((detail) => /TEMP B-TREE/.test(detail)),
      scans: details.some((detail) => /^SCAN (a|audit_entries|p)\b(?! USING)/.test(detail)),
    };
  }

  const page = (filter: AuditFilter, request: PageRequest = { limit: 21 }) => (repository: AuditEntriesRepository) => repository.page(filter, request);
  const hourAgo = () => new Date(Date.now() - 3_600_000);
  const cases: [string, (repository: AuditEntriesRepository) => Promise<unknown>, string][] = [
    ['no filter', page({}), 'idx_audit_entries_at'],
    ['actorId', page({ actorId: 42 }), 'idx_audit_entries_actor'],
    ['actorId, after a cursor', page({ actorId: 42 }, { limit: 21, after: 150_000, afterTime: new Date(Date.now() - 150_000_000) }), 'idx_audit_entries_actor'],
    ['action', page({ action: 'users.block' }), 'idx_audit_entries_action'],
    ['resourceType and resourceId', page({ resourceType: 'post', resourceId: 7 }), 'idx_audit_entries_resource'],
    ['after and before', page({ after: new Date(Date.now() - 7_200_000), before: hourAgo() }), 'idx_audit_entries_at'],
    ['before, after a cursor', page({ before: hourAgo() }, { limit: 21, after: 100_000, afterTime: new Date(Date.now() - 100_000_000) }), 'idx_audit_entries_at'],
    ['an export batch', (repository) => repository.batch({ action: 'posts.update' }, { at: hourAgo(), id: 3_600 }, 1000), 'idx_audit_entries_action'],
  ];

  it.each(cases)('%s: served by its index, in its order (no sort, no scan of the table)', async (_name, read, index) => {
    const plan = await planOf(await statementOf(read));
    expect(plan.indexes, JSON.stringify(plan)).toContain(index);
    expect(plan.sorts, JSON.stringify(plan)).toBe(false);
    expect(plan.scans, JSON.stringify(plan)).toBe(false);
  });

  it('the retention takes the oldest entries by idx_audit_entries_at', async () => {
    const plan = await planOf(await statementOf((repository) => repository.pruneBatch(new Date(Date.now() - 190_000_000), 1000)));
    expect(plan.indexes, JSON.stringify(plan)).toContain('idx_audit_entries_at');
    expect(plan.sorts, JSON.stringify(plan)).toBe(false);
  });

  it('the checks can fail: a filter on a column no index leads with is a scan', async () => {
    const plan = await planOf({ text: `SELECT id FROM audit_entries a WHERE a.changes = ${kind === 'postgres' ? '$1' : '?'} ORDER BY a.request_id`, params: ['{}'] });
    expect(plan.scans || plan.sorts).toBe(true);
    expect(plan.sorts).toBe(true);
  });
});
