/**
 * `npm run settings:docs` (with src/auth/permissions-docs.cli.ts): writes `.env.example`, the
 * settings table of docs/configuration.md and the limits table of docs/security.md (between their
 * markers) from the declarations in settings.ts. Run from the repository root.
 */
import { writeSettingsDocs } from './settings-docs.js';

const changed = writeSettingsDocs(process.cwd());
console.warn(changed.length > 0 ? `Wrote ${changed.join(' and ')}` : 'The settings docs were up to date');
