import { defineResource } from '../common/resource/resource-definition.js';
import { Tag } from './tag.entity.js';

/** The path of the public posts carrying a tag. */
export const postsTaggedPath = (slug: string) => `/posts?tag=${encodeURIComponent(slug)}`;

export const TAG_RESOURCE = defineResource({
  kind: 'tag',
  plural: 'tags',
  entity: Tag,
  links: (tag: Tag) => ({ posts: { href: postsTaggedPath(tag.slug) } }),
  computed: { postCount: { schema: { type: 'integer', minimum: 0, description: 'How many public posts carry it' } } },
  events: { tagCreated: 'A tag was made', tagUpdated: 'A tag was renamed (its slug follows its name)', tagDeleted: 'A tag was deleted (the posts that carried it lost it): its id only' },
  eventRefs: { tagId: { field: 'id', description: 'The tag it is about; null for other events', filter: 'Only events about this tag' } },
});

declare module '../events/blog-events.js' {
  interface BlogEvents {
    tagCreated: Tag;
    tagUpdated: Tag;
    tagDeleted: { id: number };
  }
}
