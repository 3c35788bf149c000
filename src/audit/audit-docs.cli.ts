/**
 * `npm run settings:docs` (after the settings and the roles): writes the actions table of
 * docs/audit.md (between its markers) from src/audit/audit-actions.ts. Run from the repository root.
 */
import { AUDIT_DOCS_FILE, writeAuditDocs } from './audit-docs.js';

console.warn(writeAuditDocs(process.cwd()) ? `Wrote the actions table of ${AUDIT_DOCS_FILE}` : 'The audit actions table was up to date');
