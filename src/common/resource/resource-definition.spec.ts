import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import type { Links } from './links.js';
import { defineResource, refColumn } from './resource-definition.js';

/** A synthetic resource: an item with an owner, events with two refs, and an array of links. */
class Sprocket {
  id: number;
  ownerId: number | null;
  version: number;
  parts?: string[];
}

const SPROCKET = defineResource({
  kind: 'sprocket',
  plural: 'sprockets',
  entity: Sprocket,
  links: (item: Sprocket): Links => (item.parts ? { parts: item.parts.map((name, index) => ({ href: `/parts/${index + 1}`, name })) } : {}),
  linkArrays: { parts: 'part' },
  computed: { parts: { schema: { type: 'array', items: { type: 'string' } }, xmlItem: 'part' } },
  events: { sprocketTurned: 'A sprocket turned', sprocketRemoved: 'A sprocket was removed' },
  eventRefs: { sprocketId: 'id', ownerId: { field: 'ownerId', description: 'Its owner' } },
});

describe('ResourceDefinition', () => {
  it('lists its events in declaration order, with their descriptions', () => {
    expect(SPROCKET.events).toEqual(['sprocketTurned', 'sprocketRemoved']);
    expect(SPROCKET.eventDescriptions.sprocketRemoved).toBe('A sprocket was removed');
  });

  it("rebuilds a deletion's payload from the ids an event carries, and the ids from an item", () => {
    expect(SPROCKET.refsOf({ id: 7, ownerId: null })).toEqual({ sprocketId: 7, ownerId: null });
    expect(SPROCKET.refsOf({ id: '7', ownerId: 2 })).toEqual({ sprocketId: 7, ownerId: 2 });
    expect(SPROCKET.deletedPayload({ sprocketId: 7, ownerId: 2, postId: 9 })).toEqual({ id: 7, ownerId: 2 });
  });

  it('names the entries of its arrays in XML and HTML (parts → part), and its links with self first', () => {
    expect(SPROCKET.xmlItem('parts')).toBe('part');
    expect(SPROCKET.xmlItem('ownerId')).toBeUndefined();
    expect(SPROCKET.linkRel('parts')).toBe('part');
    expect(SPROCKET.linkRel('self')).toBeUndefined();
    expect(SPROCKET.links(Object.assign(new Sprocket(), { id: 3, parts: ['cog'] }))).toEqual({ self: { href: '/sprockets/3' }, parts: [{ href: '/parts/1', name: 'cog' }] });
    expect(SPROCKET.path(3)).toBe('/sprockets/3');
  });

  it('refuses a ref that is no column name (it is written into SQL)', () => {
    expect(refColumn('tagId')).toBe('tag_id');
    expect(() => refColumn('tag-id; DROP TABLE events')).toThrow(/no column name/);
  });
});
