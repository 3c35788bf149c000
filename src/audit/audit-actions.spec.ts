import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../auth/permissions.js';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, renderAuditActions } from './audit-actions.js';
import { ACTIONS_BEGIN, ACTIONS_END, actionsTableOf, AUDIT_DOCS_FILE, renderActionsTable, withActionsTable } from './audit-docs.js';

describe('the audit actions table', () => {
  it(`${AUDIT_DOCS_FILE}'s actions table is what the vocabulary renders (else run: npm run settings:docs)`, () => {
    const page = readFileSync(AUDIT_DOCS_FILE, 'utf8');
    expect(actionsTableOf(page), `${AUDIT_DOCS_FILE}'s actions table differs from src/audit/audit-actions.ts: run npm run settings:docs`).toBe(renderActionsTable());
  });

  it('renders one row per action, with its permission and resource type', () => {
    const lines = renderAuditActions().split('\n');
    expect(lines[0]).toBe('| Action | What it records | Permission | Resource |');
    expect(lines).toHaveLength(2 + Object.keys(AUDIT_ACTIONS).length);
    expect(lines).toContain("| `users.setRole` | A user's role changed | `users.setRole` | `user` |");
    expect(lines.find((line) => line.startsWith('| `auth.signInFailed` |'))).toMatch(/\| — \| `user` \|$/);
  });

  it('names only permissions of the matrix and resource types of the log', () => {
    for (const action of Object.values(AUDIT_ACTIONS)) {
      if (action.permission !== null) expect(Object.keys(PERMISSIONS)).toContain(action.permission);
      expect(AUDIT_RESOURCE_TYPES).toContain(action.resource);
    }
  });

  it('replaces what is between the markers, and refuses a page without them', () => {
    const page = `intro\n${ACTIONS_BEGIN}\nold\n${ACTIONS_END}\noutro\n`;
    expect(withActionsTable(page, 'new\n')).toBe(`intro\n${ACTIONS_BEGIN}\nnew\n${ACTIONS_END}\noutro\n`);
    expect(actionsTableOf(page)).toBe('old\n');
    expect(() => actionsTableOf('no markers')).toThrow(/needs exactly one/);
    expect(() => actionsTableOf(`${page}${ACTIONS_BEGIN}\n`)).toThrow(/needs exactly one/);
  });
});
