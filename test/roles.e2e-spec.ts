import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantOf, rolesWith, type Action } from '../src/auth/permissions.js';
import { ROLES, type Role } from '../src/common/actor.js';
import { ADMIN, bearer, tokenFor } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { createComment, createPost, createUser, parseXml, USER_KEYS, xmlFields } from './support/resources.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * The four roles of CONTRACT §9, every cell of the permission table on the REST and GraphQL
 * doors. The expected outcome of each cell is read from PERMISSIONS (so the test follows the
 * table), but what is asserted is the real HTTP status or GraphQL answer.
 */

interface Member {
  id: number;
  token: string;
  email: string;
  password: string;
}

/** What a role gets for `action` on someone else's resource: allowed, or 403. */
const onOthers = (role: Role, action: Action) => grantOf(role, action) === 'any';

describeEachDatabase('roles', (kind) => {
  let app: TestApp;
  let adminId: number;
  /** A signed-in member of each role (the demo admin for admin). */
  const members = {} as Record<Role, Member>;
  /** The author whose posts, comments and account the others act on. */
  let owner: Member;
  const http = () => request(app.server);
  const gql = (query: string, variables: Record<string, unknown> | undefined, token: string | undefined) =>
    graphql(app, query, variables, token ? { token } : {});

  /** A new user given `role` by the demo admin, signed in again afterwards. */
  async function memberWithRole(role: Role): Promise<Member> {
    const user = await createUser(app);
    if (role !== 'author') {
      const changed = await http().patch(`/users/${user.id}`).set(bearer(members.admin.token)).send({ role });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.role).toBe(role);
    }
    return { ...user, token: await tokenFor(app, { email: user.email, password: user.password }) };
  }

  beforeAll(async () => {
    app = await startTestApp(kind);
    const adminToken = await tokenFor(app, ADMIN);
    adminId = expectData(await gql('{ me { id } }', undefined, adminToken)).me.id as number;
    members.admin = { id: adminId, token: adminToken, ...ADMIN };
    for (const role of ROLES.filter((r) => r !== 'admin')) members[role] = await memberWithRole(role);
    owner = await memberWithRole('author');
  });
  afterAll(() => app?.close());

  describe('roles on users', () => {
    it('each member has its role, in REST (lower case) and GraphQL (the Role enum)', async () => {
      for (const role of ROLES) {
        expect((await http().get(`/users/${members[role].id}`).expect(200)).body.role).toBe(role);
        const data = expectData(await gql('query($id: Int!) { user(id: $id) { role } }', { id: members[role].id }, undefined));
        expect(data.user.role).toBe(role.toUpperCase());
      }
    });

    it('GraphQL Role has the four values', async () => {
      const data = expectData(await gql('{ __type(name: "Role") { enumValues { name } } }', undefined, undefined));
      expect(data.__type.enumValues.map((value: { name: string }) => value.name).sort()).toEqual(ROLES.map((role) => role.toUpperCase()).sort());
    });

    it('a role outside the four is 400 (REST) and a GraphQL error; sign-up takes no role', async () => {
      for (const role of ['owner', 'ADMIN', '', 'superuser']) {
        expectProblem(await http().patch(`/users/${owner.id}`).set(bearer(members.admin.token)).send({ role }), 400, 'BAD_USER_INPUT');
      }
      const result = await gql('mutation($id: Int!) { updateUser(id: $id, input: { role: OWNER }) { id } }', { id: owner.id }, members.admin.token);
      expect(result.body.errors?.[0]?.extensions.code).toMatch(/GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/);
      expectProblem(await http().post('/users').send({ name: 'Sneaky', email: `sneaky.${kind}@example.com`, password: 'sneaky-password', role: 'admin' }), 400);
      const created = await createUser(app);
      expect((await http().get(`/users/${created.id}`).expect(200)).body.role).toBe('author');
    });

    it.each(ROLES)("setting another user's role as %s: only users.setRole holders", async (role) => {
      const target = await createUser(app);
      for (const newRole of ROLES.filter((r) => r !== 'admin')) {
        const response = await http().patch(`/users/${target.id}`).set(bearer(members[role].token)).send({ role: newRole });
        if (onOthers(role, 'users.setRole')) expect(response.status, response.text).toBe(200);
        else expectProblem(response, 403, 'FORBIDDEN');
      }
      const result = await gql('mutation($id: Int!) { updateUser(id: $id, input: { role: MODERATOR }) { role } }', { id: target.id }, members[role].token);
      if (onOthers(role, 'users.setRole')) expect(expectData(result).updateUser.role).toBe('MODERATOR');
      else expectError(result, 'FORBIDDEN', ['updateUser']);
      // Nobody but a role-setter raises themselves.
      if (!onOthers(role, 'users.setRole')) {
        expectProblem(await http().patch(`/users/${members[role].id}`).set(bearer(members[role].token)).send({ role: 'admin' }), 403, 'FORBIDDEN');
        expect((await http().get(`/users/${members[role].id}`).expect(200)).body.role).toBe(role);
      }
    });

    it.each(ROLES)("changing another user's name, signing them out, deleting them as %s: users.edit", async (role) => {
      const target = await createUser(app);
      const renamed = await http().patch(`/users/${target.id}`).set(bearer(members[role].token)).send({ name: `Renamed by ${role}` });
      const graphqlRename = await gql('mutation($id: Int!) { updateUser(id: $id, input: { name: "By GraphQL" }) { name } }', { id: target.id }, members[role].token);
      const signOut = await http().delete(`/users/${target.id}/tokens`).set(bearer(members[role].token));
      const deleted = await http().delete(`/users/${target.id}`).set(bearer(members[role].token));
      if (onOthers(role, 'users.edit')) {
        expect(renamed.status, renamed.text).toBe(200);
        expect(expectData(graphqlRename).updateUser.name).toBe('By GraphQL');
        expect(signOut.status).toBe(204);
        expect(deleted.status).toBe(204);
      } else {
        expectProblem(renamed, 403, 'FORBIDDEN');
        expectError(graphqlRename, 'FORBIDDEN', ['updateUser']);
        expectProblem(signOut, 403, 'FORBIDDEN');
        expectProblem(deleted, 403, 'FORBIDDEN');
        // Their own account: yes.
        expect((await http().patch(`/users/${members[role].id}`).set(bearer(members[role].token)).send({ name: `A ${role}` })).status).toBe(200);
      }
    });

    it('the last admin cannot be demoted or deleted (409), on REST and GraphQL; another admin can be', async () => {
      const { token } = members.admin;
      expectProblem(await http().patch(`/users/${adminId}`).set(bearer(token)).send({ role: 'editor' }), 409, 'CONFLICT');
      expectProblem(await http().delete(`/users/${adminId}`).set(bearer(token)), 409, 'CONFLICT');
      expectError(await gql('mutation($id: Int!) { updateUser(id: $id, input: { role: MODERATOR }) { id } }', { id: adminId }, token), 'CONFLICT', ['updateUser']);
      const second = await memberWithRole('admin');
      // With two admins, one may step down to any other role.
      expect((await http().patch(`/users/${second.id}`).set(bearer(second.token)).send({ role: 'editor' })).status).toBe(200);
      expect((await http().get(`/users/${second.id}`).expect(200)).body.role).toBe('editor');
      expectProblem(await http().patch(`/users/${adminId}`).set(bearer(token)).send({ role: 'author' }), 409, 'CONFLICT');
    });

    it("a role change applies to the user's next operation", async () => {
      const user = await memberWithRole('author');
      expectProblem(await http().get('/webhooks').set(bearer(user.token)), 403, 'FORBIDDEN');
      expect((await http().patch(`/users/${user.id}`).set(bearer(members.admin.token)).send({ role: 'admin' })).status).toBe(200);
      // The same token: the role is read on every operation.
      expect((await http().get('/webhooks').set(bearer(user.token))).status).toBe(200);
      expect((await http().patch(`/users/${user.id}`).set(bearer(members.admin.token)).send({ role: 'author' })).status).toBe(200);
    });
  });

  describe('blocking commenters', () => {
    const blockers = rolesWith('users.blockCommenters');

    it.each(ROLES)('as %s: PATCH /users/{id} {commentsBlocked} and updateUser, only users.blockCommenters holders', async (role) => {
      const target = await createUser(app);
      const block = await http().patch(`/users/${target.id}`).set(bearer(members[role].token)).send({ commentsBlocked: true });
      const unblock = await gql('mutation($id: Int!) { updateUser(id: $id, input: { commentsBlocked: false }) { id commentsBlocked } }', { id: target.id }, members[role].token);
      if (blockers.includes(role)) {
        expect(block.status, block.text).toBe(200);
        expect(block.body.commentsBlocked).toBe(true);
        expect(expectData(unblock).updateUser.commentsBlocked).toBe(false);
      } else {
        expectProblem(block, 403, 'FORBIDDEN');
        expectError(unblock, 'FORBIDDEN', ['updateUser']);
      }
    });

    it('a blocked user cannot unblock themselves; a blocker changing other fields needs their permissions too', async () => {
      const target = await createUser(app);
      expect((await http().patch(`/users/${target.id}`).set(bearer(members.moderator.token)).send({ commentsBlocked: true })).status).toBe(200);
      expectProblem(await http().patch(`/users/${target.id}`).set(bearer(target.token)).send({ commentsBlocked: false }), 403, 'FORBIDDEN');
      expectError(
        await gql('mutation($id: Int!) { updateUser(id: $id, input: { commentsBlocked: false }) { id } }', { id: target.id }, target.token),
        'FORBIDDEN',
        ['updateUser'],
      );
      // Name and block together: a moderator may block, not rename; nothing changes.
      expectProblem(await http().patch(`/users/${target.id}`).set(bearer(members.moderator.token)).send({ commentsBlocked: false, name: 'Renamed' }), 403, 'FORBIDDEN');
      const after = (await http().get(`/users/${target.id}`).set(bearer(target.token)).expect(200)).body;
      expect(after).toMatchObject({ commentsBlocked: true });
      expect(after.name).not.toBe('Renamed');
      // An admin may do both at once.
      const both = await http().patch(`/users/${target.id}`).set(bearer(members.admin.token)).send({ commentsBlocked: false, name: 'Renamed' });
      expect(both.status, both.text).toBe(200);
      expect(both.body).toMatchObject({ commentsBlocked: false, name: 'Renamed' });
      expectProblem(await http().patch(`/users/${target.id}`).set(bearer(members.admin.token)).send({ commentsBlocked: 'yes' }), 400, 'BAD_USER_INPUT');
    });

    it('commentsBlocked is shown only to the user and to blockers (REST JSON, HAL, XML, HTML; GraphQL null otherwise)', async () => {
      const target = await createUser(app);
      expect((await http().patch(`/users/${target.id}`).set(bearer(members.editor.token)).send({ commentsBlocked: true })).status).toBe(200);
      const readers: [string, string | undefined, boolean][] = [
        ['anonymous', undefined, false],
        ['the user', target.token, true],
        ['another author', owner.token, false],
        ...ROLES.map((role): [string, string, boolean] => [role, members[role].token, blockers.includes(role)]),
      ];
      for (const [name, token, sees] of readers) {
        const get = (path: string, accept = 'application/json') => {
          const call = http().get(path).set('accept', accept);
          return token ? call.set(bearer(token)) : call;
        };
        const one = (await get(`/users/${target.id}`).expect(200)).body;
        const list = (await get('/users?limit=100').expect(200)).body as Record<string, unknown>[];
        const inList = list.find((user) => user.id === target.id);
        const hal = (await get(`/users/${target.id}`, 'application/hal+json').expect(200)).body;
        const xml = xmlFields(parseXml((await get(`/users/${target.id}`, 'application/xml').expect(200)).text)).fields;
        const html = (await get(`/users/${target.id}`, 'text/html').expect(200)).text;
        const data = expectData(await gql('query($id: Int!) { user(id: $id) { commentsBlocked } }', { id: target.id }, token));
        if (sees) {
          expect(Object.keys(one).sort(), name).toEqual([...USER_KEYS, 'commentsBlocked'].sort());
          expect(one.commentsBlocked, name).toBe(true);
          expect(inList?.commentsBlocked, name).toBe(true);
          expect(hal.commentsBlocked, name).toBe(true);
          expect(xml.commentsBlocked, name).toBe('true');
          expect(html, name).toContain('comments blocked');
          expect(data.user.commentsBlocked, name).toBe(true);
        } else {
          expect(Object.keys(one).sort(), name).toEqual(USER_KEYS);
          expect(inList, name).toBeDefined();
          expect(inList, name).not.toHaveProperty('commentsBlocked');
          expect(hal, name).not.toHaveProperty('commentsBlocked');
          expect(xml, name).not.toHaveProperty('commentsBlocked');
          expect(html, name).not.toContain('comments blocked');
          expect(data.user.commentsBlocked, name).toBeNull();
        }
      }
    });

    it("a blocker's read API key reads users as anyone does (no commentsBlocked)", async () => {
      const target = await createUser(app);
      expect((await http().patch(`/users/${target.id}`).set(bearer(members.moderator.token)).send({ commentsBlocked: true })).status).toBe(200);
      const key = await http().post(`/users/${members.moderator.id}/api-keys`).set(bearer(members.moderator.token)).send({ name: 'Read', scopes: ['read'] });
      expect(key.status, key.text).toBe(201);
      const seen = (await http().get(`/users/${target.id}`).set(bearer(key.body.key as string)).expect(200)).body;
      expect(seen).not.toHaveProperty('commentsBlocked');
      expectProblem(await http().patch(`/users/${target.id}`).set(bearer(key.body.key as string)).send({ commentsBlocked: false }), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('posts', () => {
    it.each(ROLES)('as %s: writing a post (REST and GraphQL); its own: change, publish, trash, restore, delete', async (role) => {
      const { token } = members[role];
      const post = await createPost(app, token, { status: 'draft' });
      expect(expectData(await gql('mutation { createPost(input: { title: "G", body: "B" }) { id } }', undefined, token)).createPost.id).toEqual(expect.any(Number));
      expect((await http().patch(`/posts/${post.id}`).set(bearer(token)).send({ title: 'Own', status: 'published' })).status).toBe(200);
      expect((await http().delete(`/posts/${post.id}`).set(bearer(token))).status).toBe(204);
      expect((await http().patch(`/posts/${post.id}`).set(bearer(token)).send({ status: 'draft' })).status).toBe(200);
      expect((await http().delete(`/posts/${post.id}`).set(bearer(token))).status).toBe(204);
      expect((await http().delete(`/posts/${post.id}`).set(bearer(token))).status).toBe(204);
      expect((await http().get(`/posts/${post.id}`).set(bearer(token))).status).toBe(404);
    });

    it.each(ROLES)("as %s: another's public post: change, unpublish, publish, trash, restore, delete for good (posts.edit)", async (role) => {
      const { token } = members[role];
      const post = await createPost(app, owner.token);
      const steps: [string, () => request.Test, number][] = [
        ['change', () => http().patch(`/posts/${post.id}`).set(bearer(token)).send({ title: `Edited by ${role}` }), 200],
        ['unpublish', () => http().patch(`/posts/${post.id}`).set(bearer(token)).send({ status: 'draft' }), 200],
        ['publish', () => http().patch(`/posts/${post.id}`).set(bearer(token)).send({ status: 'published' }), 200],
        ['trash', () => http().delete(`/posts/${post.id}`).set(bearer(token)), 204],
        ['restore', () => http().patch(`/posts/${post.id}`).set(bearer(token)).send({ status: 'published' }), 200],
        ['trash again', () => http().delete(`/posts/${post.id}`).set(bearer(token)), 204],
        ['delete for good', () => http().delete(`/posts/${post.id}`).set(bearer(token)), 204],
      ];
      if (onOthers(role, 'posts.edit')) {
        for (const [step, send, status] of steps) expect((await send()).status, step).toBe(status);
        expect((await http().get(`/posts/${post.id}`).set(bearer(owner.token))).status).toBe(404);
      } else {
        for (const [, send] of steps) expectProblem(await send(), 403, 'FORBIDDEN');
        // Its author's draft or trash is out of their sight: 404, never 403.
        expect((await http().delete(`/posts/${post.id}`).set(bearer(owner.token))).status).toBe(204);
        expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(token)).send({ status: 'published' }), 404);
        expectProblem(await http().delete(`/posts/${post.id}`).set(bearer(token)), 404);
      }
    });

    it.each(ROLES)("as %s: another's post over GraphQL (updatePost, deletePost)", async (role) => {
      const { token } = members[role];
      const post = await createPost(app, owner.token);
      const update = await gql('mutation($id: Int!) { updatePost(id: $id, input: { title: "G" }) { title } }', { id: post.id }, token);
      const remove = await gql('mutation($id: Int!) { deletePost(id: $id) }', { id: post.id }, token);
      if (onOthers(role, 'posts.edit')) {
        expect(expectData(update).updatePost.title).toBe('G');
        expectData(remove);
      } else {
        expectError(update, 'FORBIDDEN', ['updatePost']);
        expectError(remove, 'FORBIDDEN', ['deletePost']);
      }
    });

    it.each(ROLES)("as %s: another's draft, its revisions, the draft list (posts.readNonPublic)", async (role) => {
      const { token } = members[role];
      const draft = await createPost(app, owner.token, { status: 'draft' });
      const sees = onOthers(role, 'posts.readNonPublic');
      expect((await http().get(`/posts/${draft.id}`).set(bearer(token))).status).toBe(sees ? 200 : 404);
      expect((await http().get(`/posts/${draft.id}/revisions`).set(bearer(token))).status).toBe(sees ? 200 : 404);
      expect((await http().get(`/posts/${draft.id}/revisions/1`).set(bearer(token))).status).toBe(sees ? 200 : 404);
      const comment = await createComment(app, owner.token, draft.id);
      expect((await http().get(`/posts/${draft.id}/comments`).set(bearer(token))).status).toBe(sees ? 200 : 404);
      expect((await http().get(`/comments/${comment.id}`).set(bearer(token))).status).toBe(sees ? 200 : 404);
      const listed = (await http().get('/posts?status=draft&limit=100').set(bearer(token)).expect(200)).body as { id: number; authorId: number }[];
      expect(listed.some((post) => post.id === draft.id)).toBe(sees);
      if (!sees) expect(listed.every((post) => post.authorId === members[role].id)).toBe(true);
      const data = expectData(
        await gql('query($id: Int!) { post(id: $id) { id revisions { number } } posts(status: DRAFT, first: 100) { nodes { id } } }', { id: draft.id }, token),
      );
      if (sees) {
        expect(data.post.revisions.map((revision: { number: number }) => revision.number)).toEqual([1]);
        expect(data.posts.nodes.map((node: { id: number }) => node.id)).toContain(draft.id);
      } else {
        expect(data.post).toBeNull();
        expect(data.posts.nodes.map((node: { id: number }) => node.id)).not.toContain(draft.id);
      }
    });

    it.each(ROLES)("as %s: writing a post for someone else (posts.setAuthor)", async (role) => {
      const { token } = members[role];
      const response = await http().post('/posts').set(bearer(token)).send({ title: 'For another', body: 'B', authorId: owner.id });
      const result = await gql('mutation($a: Int!) { createPost(input: { title: "G", body: "B", authorId: $a }) { authorId } }', { a: owner.id }, token);
      if (onOthers(role, 'posts.setAuthor')) {
        expect(response.status, response.text).toBe(201);
        expect(response.body.authorId).toBe(owner.id);
        expect(expectData(result).createPost.authorId).toBe(owner.id);
      } else {
        expectProblem(response, 403, 'FORBIDDEN');
        expectError(result, 'FORBIDDEN', ['createPost']);
      }
    });

    it("an editor's read API key cannot write; its write key can", async () => {
      const editor = members.editor;
      const post = await createPost(app, owner.token);
      const read = await http().post(`/users/${editor.id}/api-keys`).set(bearer(editor.token)).send({ name: 'Read', scopes: ['read'] });
      const write = await http().post(`/users/${editor.id}/api-keys`).set(bearer(editor.token)).send({ name: 'Write', scopes: ['read', 'write'] });
      expect([read.status, write.status]).toEqual([201, 201]);
      expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(read.body.key as string)).send({ title: 'By key' }), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await http().delete(`/posts/${post.id}`).set(bearer(read.body.key as string)), 403, 'INSUFFICIENT_SCOPE');
      expectError(await gql('mutation($id: Int!) { updatePost(id: $id, input: { title: "K" }) { id } }', { id: post.id }, read.body.key as string), 'INSUFFICIENT_SCOPE', ['updatePost']);
      expect((await http().patch(`/posts/${post.id}`).set(bearer(write.body.key as string)).send({ title: 'By key' })).status).toBe(200);
    });
  });

  describe('comments', () => {
    it.each(ROLES)("as %s: changing another's comment (comments.edit), deleting one (comments.delete), REST and GraphQL", async (role) => {
      const { token } = members[role];
      const post = await createPost(app, owner.token);
      const [first, second, third, fourth] = [
        await createComment(app, owner.token, post.id),
        await createComment(app, owner.token, post.id),
        await createComment(app, owner.token, post.id),
        await createComment(app, owner.token, post.id),
      ];
      const edit = await http().patch(`/comments/${first.id}`).set(bearer(token)).send({ body: `Edited by ${role}` });
      const graphqlEdit = await gql('mutation($id: Int!) { updateComment(id: $id, input: { body: "G" }) { body } }', { id: second.id }, token);
      if (onOthers(role, 'comments.edit')) {
        expect(edit.status, edit.text).toBe(200);
        expect(expectData(graphqlEdit).updateComment.body).toBe('G');
      } else {
        expectProblem(edit, 403, 'FORBIDDEN');
        expectError(graphqlEdit, 'FORBIDDEN', ['updateComment']);
      }
      const remove = await http().delete(`/comments/${third.id}`).set(bearer(token));
      const graphqlRemove = await gql('mutation($id: Int!) { deleteComment(id: $id) }', { id: fourth.id }, token);
      if (onOthers(role, 'comments.delete')) {
        expect(remove.status, remove.text).toBe(204);
        expectData(graphqlRemove);
        expect((await http().get(`/comments/${third.id}`)).status).toBe(404);
      } else {
        expectProblem(remove, 403, 'FORBIDDEN');
        expectError(graphqlRemove, 'FORBIDDEN', ['deleteComment']);
        expect((await http().get(`/comments/${third.id}`)).status).toBe(200);
      }
      // Their own comment: every role changes and deletes it.
      const own = await createComment(app, token, post.id);
      expect((await http().patch(`/comments/${own.id}`).set(bearer(token)).send({ body: 'Mine' })).status).toBe(200);
      expect((await http().delete(`/comments/${own.id}`).set(bearer(token))).status).toBe(204);
    });
  });

  describe('webhooks and API keys', () => {
    it.each(ROLES)('as %s: webhooks (webhooks.manage)', async (role) => {
      const { token } = members[role];
      const list = await http().get('/webhooks').set(bearer(token));
      const change = await http().patch('/webhooks/999999').set(bearer(token)).send({ active: false });
      const remove = await http().delete('/webhooks/999999').set(bearer(token));
      if (onOthers(role, 'webhooks.manage')) {
        expect(list.status).toBe(200);
        expectProblem(change, 404);
        expectProblem(remove, 404);
      } else {
        for (const response of [list, change, remove]) expectProblem(response, 403, 'FORBIDDEN');
      }
    });

    it.each(ROLES)('as %s: the audit log (audit.read)', async (role) => {
      const { token } = members[role];
      const list = await http().get('/audit?limit=1').set(bearer(token));
      const exported = await http().get('/audit').set(bearer(token)).set('accept', 'application/x-ndjson');
      const graphqlList = await gql('{ auditEntries(first: 1) { totalCount nodes { id } } }', undefined, token);
      if (onOthers(role, 'audit.read')) {
        expect(list.status).toBe(200);
        expect(exported.status).toBe(200);
        expectData(graphqlList);
      } else {
        for (const response of [list, exported]) expectProblem(response, 403, 'FORBIDDEN');
        expectError(graphqlList, 'FORBIDDEN', ['auditEntries']);
      }
    });

    it.each(ROLES)("as %s: another user's API keys (apiKeys.manage)", async (role) => {
      const { token } = members[role];
      const list = await http().get(`/users/${owner.id}/api-keys`).set(bearer(token));
      const revoke = await http().delete(`/users/${owner.id}/api-keys/999999`).set(bearer(token));
      const graphqlList = await gql('query($id: Int!) { apiKeys(userId: $id) { id } }', { id: owner.id }, token);
      if (onOthers(role, 'apiKeys.manage')) {
        expect(list.status).toBe(200);
        expectProblem(revoke, 404);
        expectData(graphqlList);
      } else {
        expectProblem(list, 403, 'FORBIDDEN');
        expectProblem(revoke, 403, 'FORBIDDEN');
        expectError(graphqlList, 'FORBIDDEN', ['apiKeys']);
        expect((await http().get(`/users/${members[role].id}/api-keys`).set(bearer(token))).status).toBe(200);
      }
    });
  });

  it.each(ROLES)("as %s: another user's personal data (users.export; REST only)", async (role) => {
    const { id, token, password } = members[role];
    const exported = await http().get(`/users/${owner.id}/export`).set(bearer(token));
    if (onOthers(role, 'users.export')) expect(exported.status, exported.text).toBe(200);
    else expectProblem(exported, 403, 'FORBIDDEN');
    // Their own: yes (with the password, whatever their token's age).
    const own = await http().get(`/users/${id}/export`).set(bearer(token)).set('X-Current-Password', password);
    expect(own.status, own.text).toBe(200);
  });

  it('the 403 names the action', async () => {
    const post = await createPost(app, owner.token);
    const problem = expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(members.moderator.token)).send({ title: 'No' }), 403, 'FORBIDDEN');
    expect(problem.detail).toContain('posts.edit');
  });
});
