/**
 * The floors of src/, lowest first (README, "Layout"). A file may import its own floor and
 * the floors below it, never one above; and no two modules may import each other, directly
 * or through others. Every folder not named below is a feature (users, posts, comments, …),
 * so a new resource needs no change here. `npm run lint` runs this check.
 */
const FLOORS = [
  ['config', 'redaction'],
  ['common', 'redis', 'metrics', 'tracing'],
  ['database', 'auth'],
  ['events'],
  null, // the features
  ['api', 'health', 'demo'],
  ['app\\.module\\.ts', 'app\\.factory\\.ts', 'main\\.ts', 'print-schema\\.ts'],
];
const NAMED = FLOORS.filter(Boolean).flat();
const FEATURE = `^src/(?!(${NAMED.join('|')})(/|$))[^/]+/`;
const path = (floor) => (floor === null ? FEATURE : `^src/(${floor.join('|')})(/|$)`);

module.exports = {
  forbidden: [
    ...FLOORS.slice(0, -1).map((floor, index) => ({
      name: `floor-${index}-imports-higher`,
      comment: `${floor ? floor.join(', ') : 'a feature'} may not import a higher floor`,
      severity: 'error',
      from: { path: path(floor) },
      to: { path: FLOORS.slice(index + 1).map(path).join('|') },
    })),
    {
      name: 'posts-imports-comments',
      comment: 'Comments are on posts: comments may read posts, never the reverse (a page that shows both, like a post with its comments, joins them in api/rest/pages)',
      severity: 'error',
      from: { path: '^src/posts/' },
      to: { path: '^src/comments/' },
    },
    {
      name: 'no-circular',
      comment: 'Modules that import each other (directly or through others) cannot be understood apart',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
