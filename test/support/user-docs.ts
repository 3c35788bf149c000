import { readdirSync } from 'node:fs';

/**
 * The user docs, in reading order: the README first, then the pages of docs/ it links, each
 * continuing from the one before (the walkthrough runs their shell blocks in this order, in one
 * session, so a page may use what an earlier one set up). Paths from the repository root.
 */
export const USER_DOCS = [
  'README.md',
  'docs/http-api.md',
  'docs/graphql.md',
  'docs/publishing.md',
  'docs/languages.md',
  'docs/media.md',
  'docs/media-storage.md',
  'docs/live-updates.md',
  'docs/webhooks.md',
  'docs/audit.md',
  'docs/sso.md',
  'docs/configuration.md',
  'docs/security.md',
  'docs/operations.md',
  'docs/testing.md',
  'docs/benchmarks.md',
  'docs/design.md',
] as const;

/** The Markdown pages of docs/ as they are on disk (a new page must be added to USER_DOCS). */
export function docsPagesOnDisk(root: URL): string[] {
  return readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
    .sort();
}
