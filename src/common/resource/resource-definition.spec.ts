import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { POST_RESOURCE } from '../../posts/post.resource.js';
import { defineResource, refColumn, resources } from './resource-definition.js';

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
    defineResource({ kind: 'sprocket', plural: 'sprockets', entity: Sprocket, events: { sprocketTurned: 'A sprocket turned' }, eventRefs: { sprocketId: 'id' }, html: { title: () => '', page: '', list: '' } });
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
