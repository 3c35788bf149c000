import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROLES } from '../common/actor.js';
import { PERMISSIONS, grantOf, renderPermissionMatrix, rolesWith, type Action } from './permissions.js';
import { renderRolesTable, ROLES_BEGIN, ROLES_DOCS_FILE, ROLES_END, rolesTableOf, withRolesTable } from './permissions-docs.js';

describe('the permission table', () => {
  it(`${ROLES_DOCS_FILE}'s roles table is what the table renders (else run: npm run settings:docs)`, () => {
    const page = readFileSync(ROLES_DOCS_FILE, 'utf8');
    expect(rolesTableOf(page), `${ROLES_DOCS_FILE}'s roles table differs from src/auth/permissions.ts: run npm run settings:docs`).toBe(renderRolesTable());
  });

  it('renders one row per action and one column per role', () => {
    const lines = renderPermissionMatrix(ROLES).split('\n');
    expect(lines[0]).toBe('| Action | admin | editor | moderator | author |');
    expect(lines).toHaveLength(2 + Object.keys(PERMISSIONS).length);
    expect(lines).toContain("| Set a post's author | yes | — | — | — |");
    expect(lines).toContain('| Delete comments | yes | yes | yes | own |');
  });

  it('gives admins everything on anyone', () => {
    for (const action of Object.keys(PERMISSIONS) as Action[]) expect(grantOf('admin', action), action).toBe('any');
  });

  it('holds what CONTRACT §9 says of each role', () => {
    expect(rolesWith('posts.edit')).toEqual(['admin', 'editor']);
    expect(rolesWith('posts.readNonPublic')).toEqual(['admin', 'editor']);
    expect(rolesWith('users.blockCommenters')).toEqual(['admin', 'editor', 'moderator']);
    expect(rolesWith('comments.moderate')).toEqual(['admin', 'editor', 'moderator']);
    expect(rolesWith('users.setRole')).toEqual(['admin']);
    expect(rolesWith('webhooks.manage')).toEqual(['admin']);
    expect(grantOf('author', 'posts.edit')).toBe('own');
    // CONTRACT §16: editors and admins publish without review and review; their events' audience (restricted) holds every reviewer.
    expect(rolesWith('posts.publish')).toEqual(['admin', 'editor']);
    expect(rolesWith('posts.review')).toEqual(rolesWith('posts.readNonPublic'));
    expect(grantOf('author', 'posts.submit')).toBe('own');
    expect(grantOf('moderator', 'comments.edit')).toBe('own');
  });

  it('replaces only the part of the page between the markers', () => {
    const readme = `# T\n\n${ROLES_BEGIN}\n| old |\n${ROLES_END}\n\nAfter.\n`;
    expect(withRolesTable(readme, '| new |\n')).toBe(`# T\n\n${ROLES_BEGIN}\n| new |\n${ROLES_END}\n\nAfter.\n`);
    expect(() => rolesTableOf('# none\n')).toThrow(/roles:begin/);
  });
});
