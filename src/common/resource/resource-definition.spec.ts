import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Post } from '../../posts/post.entity.js';
import { POST_RESOURCE } from '../../posts/post.resource.js';
import { User } from '../../users/user.entity.js';
import { USER_RESOURCE } from '../../users/user.resource.js';
import { defineResource, refColumn, resources } from './resource-definition.js';

describe('ResourceDefinition', () => {
  it('builds a view with generated code, one object literal (this is the code that runs)', () => {
    expect(POST_RESOURCE.viewSource()).toBe(
      'return { "id": s["id"], "title": s["title"], "body": s["body"], "authorId": s["authorId"], ' +
        '"status": s["status"], "publishAt": iso(s["publishAt"]), "publishedAt": iso(s["publishedAt"]), "trashedAt": iso(s["trashedAt"]), ' +
        '"createdAt": iso(s["createdAt"]), "updatedAt": iso(s["updatedAt"]), "tags": s["tags"], _links: definition.links(s) };',
    );
  });

  it('shows computed fields after the columns (a post\'s tags), required in the schema of reads but not in the event log\'s snapshot (which may have none), named in XML', () => {
    const post = Object.assign(new Post(), { id: 7, title: 'T', body: 'B', authorId: 2, createdAt: new Date(0), updatedAt: new Date(0), version: 1, tags: ['a', 'b-c'] });
    const view = POST_RESOURCE.view(post);
    expect(view.tags).toEqual(['a', 'b-c']);
    expect(Object.keys(view).slice(-2)).toEqual(['tags', '_links']);
    expect(POST_RESOURCE.schema.properties?.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(POST_RESOURCE.schema.required).toContain('tags');
    expect(POST_RESOURCE.schema.required?.at(-1)).toBe('_links');
    expect(POST_RESOURCE.snapshotSchema.required).not.toContain('tags');
    expect(POST_RESOURCE.snapshotSchema.properties).toEqual(POST_RESOURCE.schema.properties);
    expect(POST_RESOURCE.xmlItem('tags')).toBe('tag');
    expect(POST_RESOURCE.xmlItem('title')).toBeUndefined();
    expect(USER_RESOURCE.xmlItem('tags')).toBeUndefined();
  });

  it('shows the fields (timestamps in ISO 8601, never the version) and the links', () => {
    const post = Object.assign(new Post(), { id: 7, title: 'T', body: 'B', authorId: 2, createdAt: new Date(0), updatedAt: new Date(1000), version: 3 });
    expect(POST_RESOURCE.view(post)).toEqual({
      id: 7,
      title: 'T',
      body: 'B',
      authorId: 2,
      createdAt: '1970-01-01T00:00:00.000Z',
      updatedAt: '1970-01-01T00:00:01.000Z',
      _links: { self: { href: '/posts/7' }, author: { href: '/users/2' }, comments: { href: '/posts/7/comments' } },
    });
  });

  it('leaves private fields out of the view unless revealed, and out of the schema\'s required ones', () => {
    const user = Object.assign(new User(), { id: 4, name: 'N', email: 'n@example.com', avatarUrl: null, role: 'author', commentsBlocked: true, createdAt: new Date(0), updatedAt: new Date(0), version: 1 });
    expect(USER_RESOURCE.viewSource()).not.toContain('commentsBlocked');
    expect(USER_RESOURCE.view(user)).not.toHaveProperty('commentsBlocked');
    const revealed = USER_RESOURCE.view(user, true);
    expect(revealed.commentsBlocked).toBe(true);
    expect(Object.keys(revealed).at(-1)).toBe('_links');
    expect(USER_RESOURCE.list([user], null, () => true).items[0].commentsBlocked).toBe(true);
    expect(USER_RESOURCE.list([user], null).items[0]).not.toHaveProperty('commentsBlocked');
    expect(USER_RESOURCE.schema.required).not.toContain('commentsBlocked');
    expect(USER_RESOURCE.schema.properties?.commentsBlocked).toEqual({ type: 'boolean' });
  });
});

describe('the event vocabulary of the registry', () => {
  it("is the resources' declarations, in declaration order, rebuilt only after a new declaration", () => {
    const types = resources.eventTypes();
    expect(types.slice(0, 5).map(({ type }) => type)).toEqual(['POST_CREATED', 'POST_UPDATED', 'POST_DELETED', 'POST_PUBLISHED', 'POST_UNPUBLISHED']);
    expect(types[0]).toEqual({ type: 'POST_CREATED', name: 'postCreated', description: 'A post was written', kind: 'post' });
    expect(resources.eventTypes()).toBe(types);
    expect(resources.eventRefs().map(({ ref, column }) => [ref, column])).toEqual(expect.arrayContaining([['postId', 'post_id'], ['authorId', 'author_id']]));

    class Sprocket {
      id: number;
      version: number;
    }
    defineResource({ kind: 'sprocket', plural: 'sprockets', entity: Sprocket, events: { sprocketTurned: 'A sprocket turned' }, eventRefs: { sprocketId: 'id' } });
    expect(resources.eventTypes()).not.toBe(types);
    expect(resources.eventTypes().at(-1)).toEqual({ type: 'SPROCKET_TURNED', name: 'sprocketTurned', description: 'A sprocket turned', kind: 'sprocket' });
    expect(resources.eventRefs().at(-1)).toEqual({ ref: 'sprocketId', column: 'sprocket_id' });
    expect(resources.ofEvent('sprocketTurned')?.refsOf({ id: 3 })).toEqual({ sprocketId: 3 });
  });

  it('keeps a ref described by the first resource that describes it', () => {
    const postId = resources.eventRefs().find(({ ref }) => ref === 'postId');
    expect(postId?.filter).toBe('Only events about this post (for comment events: the post they are on)');
    expect(POST_RESOURCE.refsOf({ id: 7, authorId: null })).toEqual({ postId: 7, authorId: null });
    expect(POST_RESOURCE.deletedPayload({ postId: 7, authorId: 2, commentId: null })).toEqual({ id: 7, authorId: 2 });
  });

  it('refuses a ref that is no column name (it is written into SQL)', () => {
    expect(refColumn('tagId')).toBe('tag_id');
    expect(() => refColumn('tag-id; DROP TABLE events')).toThrow(/no column name/);
  });
});
