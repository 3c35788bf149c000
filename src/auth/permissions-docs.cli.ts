/**
 * `npm run settings:docs` (after src/config/settings-docs.cli.ts): writes the roles table of
 * docs/http-api.md (between its markers) from src/auth/permissions.ts. Run from the repository root.
 */
import { ROLES_DOCS_FILE, writeRolesDocs } from './permissions-docs.js';

console.warn(writeRolesDocs(process.cwd()) ? `Wrote the roles table of ${ROLES_DOCS_FILE}` : 'The roles table was up to date');
