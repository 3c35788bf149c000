/**
 * `npm run settings:docs` (after src/config/settings-docs.cli.ts): writes the README's roles
 * table (between its markers) from src/auth/permissions.ts. Run from the repository root.
 */
import { writeRolesDocs } from './permissions-docs.js';

console.warn(writeRolesDocs(process.cwd()) ? 'Wrote the roles table of README.md' : 'The roles table was up to date');
