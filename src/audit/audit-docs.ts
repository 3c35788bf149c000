import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderAuditActions } from './audit-actions.js';

export const AUDIT_DOCS_FILE = 'docs/audit.md';
export const ACTIONS_BEGIN = '<!-- audit-actions:begin -->';
export const ACTIONS_END = '<!-- audit-actions:end -->';

/** The actions table of docs/audit.md, as `renderAuditActions` renders it (with the line end before the end marker). */
export function renderActionsTable(): string {
  return `${renderAuditActions()}\n`;
}

/** Where the table is: after the begin marker's line, up to the end marker. */
function bounds(page: string): [number, number] {
  const begin = page.indexOf(`${ACTIONS_BEGIN}\n`);
  const end = page.indexOf(ACTIONS_END);
  if (begin < 0 || end < begin || page.indexOf(ACTIONS_BEGIN, begin + 1) >= 0 || page.indexOf(ACTIONS_END, end + 1) >= 0) {
    throw new Error(`${AUDIT_DOCS_FILE} needs exactly one "${ACTIONS_BEGIN}" line followed by one "${ACTIONS_END}" around the actions table`);
  }
  return [begin + ACTIONS_BEGIN.length + 1, end];
}

/** The actions table as it is now (between the markers). */
export function actionsTableOf(page: string): string {
  const [begin, end] = bounds(page);
  return page.slice(begin, end);
}

/** The page with the part between the markers replaced by `table`. */
export function withActionsTable(page: string, table: string): string {
  const [begin, end] = bounds(page);
  return page.slice(0, begin) + table + page.slice(end);
}

/** Writes the actions table of docs/audit.md under `root` (`npm run settings:docs`); true when it changed. */
export function writeAuditDocs(root: string): boolean {
  const path = join(root, AUDIT_DOCS_FILE);
  if (!existsSync(path)) return false;
  const page = readFileSync(path, 'utf8');
  const rendered = withActionsTable(page, renderActionsTable());
  if (rendered === page) return false;
  writeFileSync(path, rendered);
  return true;
}
