import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROLES } from '../common/actor.js';
import { renderPermissionMatrix } from './permissions.js';

export const ROLES_DOCS_FILE = 'docs/http-api.md';
export const ROLES_BEGIN = '<!-- roles:begin -->';
export const ROLES_END = '<!-- roles:end -->';

/** The roles table of docs/http-api.md, as `renderPermissionMatrix` renders it (with the line end before the end marker). */
export function renderRolesTable(): string {
  return `${renderPermissionMatrix(ROLES)}\n`;
}

/** Where the table is: after the begin marker's line, up to the end marker. */
function bounds(readme: string): [number, number] {
  const begin = readme.indexOf(`${ROLES_BEGIN}\n`);
  const end = readme.indexOf(ROLES_END);
  if (begin < 0 || end < begin || readme.indexOf(ROLES_BEGIN, begin + 1) >= 0 || readme.indexOf(ROLES_END, end + 1) >= 0) {
    throw new Error(`${ROLES_DOCS_FILE} needs exactly one "${ROLES_BEGIN}" line followed by one "${ROLES_END}" around the roles table`);
  }
  return [begin + ROLES_BEGIN.length + 1, end];
}

/** The roles table as it is now (between the markers). */
export function rolesTableOf(readme: string): string {
  const [begin, end] = bounds(readme);
  return readme.slice(begin, end);
}

/** The page with the part between the markers replaced by `table`. */
export function withRolesTable(readme: string, table: string): string {
  const [begin, end] = bounds(readme);
  return readme.slice(0, begin) + table + readme.slice(end);
}

/** Writes the roles table of docs/http-api.md under `root` (`npm run settings:docs`); true when it changed. */
export function writeRolesDocs(root: string): boolean {
  const path = join(root, ROLES_DOCS_FILE);
  if (!existsSync(path)) return false;
  const readme = readFileSync(path, 'utf8');
  const rendered = withRolesTable(readme, renderRolesTable());
  if (rendered === readme) return false;
  writeFileSync(path, rendered);
  return true;
}
