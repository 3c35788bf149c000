/**
 * The targets table: issue 43's rows (each figure beside its target, from the report of this
 * run), then the older rows still worth watching under issue 27's targets; "—" where its scenario
 * was not run (or its database was not the one measured). Issue 43's targets hold on Node 20 and
 * on Node 24: each row says which Node its figure was measured on.
 */

const scenario = (report, id) => report.scenarios?.find((entry) => entry.id === id && entry.status === 'measured');
const onDatabase = (report, database) => report.options?.database === database;

const times = (value) => `${value.toFixed(2)}×`;
const percent = (value) => `${(value * 100).toFixed(1)}%`;
const statements = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

/** The rows: `{ issue, name, figure, target, met, node }` (figure null: not run). */
export function targetRows(report) {
  const field = (id, name, database) => {
    if (database && !onDatabase(report, database)) return null;
    const value = scenario(report, id)?.[name];
    return typeof value === 'number' ? value : null;
  };
  const serviceSql = (id) => {
    const value = scenario(report, id)?.service?.sqlPerRequest;
    return typeof value === 'number' ? value : null;
  };
  const hotSet20 = report.cacheHotSet?.find((row) => row.rate === 20)?.hitRatio;
  const service = report.node?.service ?? report.machine?.node ?? null;
  const peer = report.node?.peer ?? report.peer?.node ?? null;
  const withPeer = service && peer ? `service ${service}, peer ${peer}` : service;
  const rows = [
    { issue: 43, name: 'Post page, PostgreSQL, cache off / PostGraphile', value: field('graphql-post-page', 'peerRatio', 'postgres'), at: 1.3, atLeast: true, show: times, node: withPeer },
    { issue: 43, name: 'Post page, SQLite / floor', value: field('graphql-post-page', 'ratio', 'sqlite'), at: 0.5, atLeast: true, show: times, node: service },
    { issue: 43, name: 'GET /posts/{id} / floor', value: field('rest-post', 'ratio'), at: 0.7, atLeast: true, show: times, node: service },
    // Against a floor that writes the same rows (the post, its slug, revision 1, its event and its audit entry).
    { issue: 43, name: 'createPost / floor (same rows)', value: field('graphql-create-post', 'ratio'), at: 0.6, atLeast: true, show: times, node: service },
    // SQL/req of the service on the post page (db_queries_total delta / requests sent).
    { issue: 43, name: 'Post page, SQL statements per request', value: serviceSql('graphql-post-page'), at: 1, atLeast: false, exactly: true, show: statements, node: service },
    { issue: 43, name: 'Cold start on an existing database, median of 5', value: report.coldStart?.medianMs ?? null, at: 1000, atLeast: false, show: (ms) => `${(ms / 1000).toFixed(2)} s`, node: report.coldStart?.node ?? service },
    { issue: 43, name: 'Idle RSS (after a few requests and 2 s idle)', value: report.coldStart?.idleRssMb ?? null, at: 130, atLeast: false, show: (mb) => `${mb.toFixed(0)} MB`, node: report.coldStart?.node ?? service },
    { issue: 27, name: 'Post page, PostgreSQL, cache on / PostGraphile', value: field('graphql-post-page', 'cachedPeerRatio', 'postgres'), at: 4.0, atLeast: true, show: times, node: withPeer },
    { issue: 27, name: 'GET /posts / floor', value: field('rest-posts', 'ratio'), at: 0.6, atLeast: true, show: times, node: service },
    { issue: 27, name: 'GET /posts/{id}/comments / floor', value: field('rest-comments', 'ratio'), at: 0.6, atLeast: true, show: times, node: service },
    { issue: 27, name: 'Hot-set hit ratio at 20 writes/s', value: typeof hotSet20 === 'number' ? hotSet20 : null, at: 0.95, atLeast: true, show: percent, node: service },
  ];
  return rows.map(({ issue, name, value, at, atLeast, exactly, show, node }) => {
    const measured = value !== null && value !== undefined;
    return {
      issue,
      name,
      node: measured ? node : null,
      figure: measured ? show(value) : null,
      target: exactly ? `= ${show(at)}` : `${atLeast ? '≥' : '≤'} ${show(at)}`,
      // SQL/req is a ratio of counters: "= 1" is met when it shows as 1.00.
      met: !measured ? null : exactly ? Math.abs(value - at) < 0.005 : atLeast ? value >= at : value <= at,
    };
  });
}

/** The table, as markdown. */
export function renderTargets(report) {
  const lines = ['', `### Targets (issue 43; older rows: issue 27), ${report.options?.database === 'postgres' ? 'PostgreSQL' : 'SQLite'} run`, ''];
  lines.push('| Issue | Figure | Node | Measured | Target | Met |', '|---|---|---|---:|---:|:---:|');
  for (const row of targetRows(report)) {
    lines.push(`| ${row.issue} | ${row.name} | ${row.node ?? '—'} | ${row.figure ?? '—'} | ${row.target} | ${row.met === null ? '—' : row.met ? 'yes' : 'NO'} |`);
  }
  lines.push(
    '',
    '"—": not measured in this run (its scenario was not selected, or it needs the other database or --peer). Issue 43\'s targets hold on Node 20 and on Node 24: run once with each (`--node 24`).',
  );
  return lines.join('\n');
}
