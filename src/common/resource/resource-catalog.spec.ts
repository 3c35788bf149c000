import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { COMMENT_RESOURCE } from '../../comments/comment.resource.js';
import { POST_RESOURCE } from '../../posts/post.resource.js';
import { RESOURCES } from '../../resources.js';
import { USER_RESOURCE } from '../../users/user.resource.js';
import { ResourceCatalog, type ResourceList } from './resource-catalog.js';
import { defineResource, type ResourceDefinition } from './resource-definition.js';

class Sprocket {
  id: number;
  version: number;
  postId: number;
}

const SPROCKET = defineResource({
  kind: 'sprocket',
  plural: 'sprockets',
  entity: Sprocket,
  events: { sprocketTurned: 'A sprocket turned', sprocketStopped: 'A sprocket stopped' },
  eventRefs: { sprocketId: { field: 'id', filter: 'Only this sprocket' }, postId: { field: 'postId', description: 'Not the first to describe it' } },
});

const list = (...resources: ResourceDefinition<never>[]): ResourceList => ({ resources, tables: [] });
const any = (definition: object) => definition as ResourceDefinition<never>;

describe('ResourceCatalog', () => {
  it("derives the event types from the resources' declarations, in the order listed", () => {
    const catalog = new ResourceCatalog(list(any(POST_RESOURCE), any(COMMENT_RESOURCE), any(SPROCKET)));
    expect(catalog.eventTypeNames()).toEqual([
      'POST_CREATED', 'POST_UPDATED', 'POST_DELETED', 'POST_PUBLISHED', 'POST_UNPUBLISHED', 'POST_SUBMITTED', 'POST_REVIEWED',
      'COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED',
      'SPROCKET_TURNED', 'SPROCKET_STOPPED',
    ]);
    expect(catalog.eventTypes()[0]).toEqual({ type: 'POST_CREATED', name: 'postCreated', description: 'A post was written', kind: 'post' });
    expect(catalog.eventTypes().at(-1)).toEqual({ type: 'SPROCKET_STOPPED', name: 'sprocketStopped', description: 'A sprocket stopped', kind: 'sprocket' });
    // Computed once: the same array every time (the outbox keys its column lists by it).
    expect(catalog.eventTypes()).toBe(catalog.eventTypes());
    expect(catalog.eventRefs()).toBe(catalog.eventRefs());
    // Another order, another vocabulary.
    expect(new ResourceCatalog(list(any(SPROCKET), any(POST_RESOURCE))).eventTypeNames().slice(0, 3)).toEqual(['SPROCKET_TURNED', 'SPROCKET_STOPPED', 'POST_CREATED']);
  });

  it('derives the refs as the union of the resources\' refs, in first-declared order, the first description winning', () => {
    const catalog = new ResourceCatalog(list(any(POST_RESOURCE), any(COMMENT_RESOURCE), any(SPROCKET)));
    expect(catalog.eventRefs().map(({ ref, column }) => [ref, column])).toEqual([
      ['postId', 'post_id'],
      ['authorId', 'author_id'],
      ['commentId', 'comment_id'],
      ['sprocketId', 'sprocket_id'],
    ]);
    const postId = catalog.eventRefs().find(({ ref }) => ref === 'postId');
    expect(postId?.description).toBe('The post it is about (for a comment event, the post the comment is on)');
    expect(postId?.filter).toBe('Only events about this post (for comment events: the post they are on)');
    expect(catalog.filterRefs()).toEqual(['postId', 'authorId', 'sprocketId']);
    // The sprocket first: its description of postId wins, and it declares no filter for it.
    expect(new ResourceCatalog(list(any(SPROCKET), any(POST_RESOURCE))).eventRefs()[1]).toEqual({
      ref: 'postId',
      column: 'post_id',
      description: 'Not the first to describe it',
      filter: 'Only events about this post (for comment events: the post they are on)',
    });
  });

  it('finds a resource by kind and by event, and knows only those it was given', () => {
    const catalog = new ResourceCatalog(list(any(POST_RESOURCE), any(SPROCKET)));
    expect(catalog.get('post')).toBe(POST_RESOURCE);
    expect(catalog.ofEvent('sprocketTurned')).toBe(SPROCKET);
    expect(catalog.ofEvent('sprocketTurned')?.refsOf({ id: 3, postId: 4 })).toEqual({ sprocketId: 3, postId: 4 });
    expect(catalog.get('comment')).toBeUndefined();
    expect(catalog.ofEvent('commentCreated')).toBeUndefined();
    expect(catalog.all()).toEqual([POST_RESOURCE, SPROCKET]);
  });

  it("lists the entities: the resources', then the other tables', each once", () => {
    class Other {}
    const catalog = new ResourceCatalog({ resources: [any(USER_RESOURCE), any(POST_RESOURCE)], tables: [Other, USER_RESOURCE.entity] });
    expect(catalog.entities).toEqual([USER_RESOURCE.entity, POST_RESOURCE.entity, Other]);
  });

  it('refuses a resource named twice', () => {
    expect(() => new ResourceCatalog(list(any(POST_RESOURCE), any(POST_RESOURCE)))).toThrow(/named twice/);
  });

  it("is the application's list: tags, users, posts, revisions, reviews, comments, media, then the tables that are no resource", () => {
    const catalog = new ResourceCatalog(RESOURCES);
    expect(catalog.all().map(({ kind }) => kind)).toEqual(['tag', 'user', 'post', 'revision', 'review', 'comment', 'media']);
    expect(catalog.entities.map(({ name }) => name)).toEqual(['Tag', 'User', 'Post', 'PostRevision', 'PostReview', 'Comment', 'Media', 'ApiKey', 'Webhook', 'AuditEntry']);
    expect(catalog.eventRefs().map(({ ref }) => ref)).toEqual(['tagId', 'postId', 'authorId', 'commentId', 'mediaId']);
  });
});
