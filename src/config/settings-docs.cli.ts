/**
 * `npm run settings:docs`: writes `.env.example` and the README's settings table (between its
 * markers) from the declarations in settings.ts, and the README's roles table from
 * src/auth/permissions.ts. Run from the repository root.
 */
import { writeRolesDocs } from '../auth/permissions-docs.js';
import { writeSettingsDocs } from './settings-docs.js';

const changed = writeSettingsDocs(process.cwd());
if (writeRolesDocs(process.cwd()) && !changed.includes('README.md')) changed.push('README.md');
console.warn(changed.length > 0 ? `Wrote ${changed.join(' and ')}` : 'The settings docs were up to date');
