/**
 * The "Targets (issue 27)" table: each figure of the issue beside its target, from the report of
 * this run; "—" where its scenario was not run (or its database was not the one measured).
 */

const scenario = (report, id) => report.scenarios?.find((entry) => entry.id === id && entry.status === 'measured');
const onDatabase = (report, database) => report.options?.database === database;

const times = (value) => `${value.toFixed(2)}×`;
const percent = (value) => `${(value * 100).toFixed(1)}%`;

/** The rows: `{ name, figure, target, met }` (figure null: not run). */
export function targetRows(report) {
  const ratioOf = (id, field, database) => {
    if (database && !onDatabase(report, database)) return null;
    const value = scenario(report, id)?.[field];
    return typeof value === 'number' ? value : null;
  };
  const hotSet20 = report.cacheHotSet?.find((row) => row.rate === 20)?.hitRatio;
  const rows = [
    { name: 'GraphQL post page, PostgreSQL, cache off / PostGraphile', value: ratioOf('graphql-post-page', 'peerRatio', 'postgres'), at: 1.0, atLeast: true, show: times },
    { name: 'GraphQL post page, PostgreSQL, cache on / PostGraphile', value: ratioOf('graphql-post-page', 'cachedPeerRatio', 'postgres'), at: 4.0, atLeast: true, show: times },
    { name: 'GraphQL post page, SQLite / floor', value: ratioOf('graphql-post-page', 'ratio', 'sqlite'), at: 0.35, atLeast: true, show: times },
    { name: 'GET /posts/{id} / floor', value: ratioOf('rest-post', 'ratio'), at: 0.6, atLeast: true, show: times },
    { name: 'GET /posts / floor', value: ratioOf('rest-posts', 'ratio'), at: 0.6, atLeast: true, show: times },
    { name: 'GET /posts/{id}/comments / floor', value: ratioOf('rest-comments', 'ratio'), at: 0.6, atLeast: true, show: times },
    // Issue 43: against a floor that writes the same rows (the post, its slug, revision 1, its event and its audit entry).
    { name: 'createPost / floor (same rows)', value: ratioOf('graphql-create-post', 'ratio'), at: 0.6, atLeast: true, show: times },
    { name: 'Hot-set hit ratio at 20 writes/s', value: typeof hotSet20 === 'number' ? hotSet20 : null, at: 0.95, atLeast: true, show: percent },
    { name: 'Cold start, median of 5', value: report.coldStart?.medianMs ?? null, at: 1500, atLeast: false, show: (ms) => `${(ms / 1000).toFixed(2)} s` },
    { name: 'Idle RSS', value: report.coldStart?.idleRssMb ?? null, at: 150, atLeast: false, show: (mb) => `${mb.toFixed(0)} MB` },
  ];
  return rows.map(({ name, value, at, atLeast, show }) => ({
    name,
    figure: value === null || value === undefined ? null : show(value),
    target: `${atLeast ? '≥' : '≤'} ${show(at)}`,
    met: value === null || value === undefined ? null : atLeast ? value >= at : value <= at,
  }));
}

/** The table, as markdown. */
export function renderTargets(report) {
  const lines = ['', `### Targets (issue 27), ${report.options?.database === 'postgres' ? 'PostgreSQL' : 'SQLite'} run`, ''];
  lines.push('| Figure | Measured | Target | Met |', '|---|---:|---:|:---:|');
  for (const row of targetRows(report)) lines.push(`| ${row.name} | ${row.figure ?? '—'} | ${row.target} | ${row.met === null ? '—' : row.met ? 'yes' : 'NO'} |`);
  lines.push('', '"—": not measured in this run (its scenario was not selected, or it needs the other database or --peer).');
  return lines.join('\n');
}
