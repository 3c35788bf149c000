import type { Link } from '../common/resource/links.js';
import { defineResource } from '../common/resource/resource-definition.js';
import { POST_STATUSES } from '../auth/read-policy.js';
import { Post } from './post.entity.js';

/**
 * A post's tags as links to `/tags/{id}`, named by slug, when it has some and the read brought
 * their ids (a post from the event log has none). Whoever sees the post sees its tags (ReadPolicy.tagScope).
 */
function tagLinks(post: Post): { tags?: Link[] } {
  const { tags, tagIds } = post;
  if (!tags || !tagIds || tagIds.length !== tags.length || tags.length === 0) return {};
  return { tags: tags.map((slug, index) => ({ href: `/tags/${tagIds[index]}`, name: slug })) };
}

/**
 * Its other translations that the reader may see, as links with their language, when the door
 * that read it put them on it (PostsService.withTranslations) and there are some.
 */
function translationLinks(post: Post): { translations?: Link[] } {
  const { translations } = post;
  if (!translations || translations.length === 0) return {};
  return { translations: translations.map(({ id, locale }) => ({ href: `/posts/${id}`, hreflang: locale })) };
}

export const POST_RESOURCE = defineResource({
  kind: 'post',
  plural: 'posts',
  entity: Post,
  links: (post: Post) => ({ author: { href: `/users/${post.authorId}` }, comments: { href: `/posts/${post.id}/comments` }, ...tagLinks(post), ...translationLinks(post) }),
  linkArrays: { tags: 'tag', translations: { rel: 'alternate', key: 'hreflang' } },
  // Its translations change without its version: its ETag follows those the reader is shown.
  linkState: (post: Post) => (post.translations && post.translations.length > 0 ? post.translations.map(({ id, locale }) => `${id}:${locale}`).join(',') : undefined),
  // Revealed by the controllers to whom ReadPolicy.canSeeRevisions lets read them (GET /posts/{id}/revisions).
  readerLinks: { revisions: (post: Post) => ({ href: `/posts/${post.id}/revisions` }) },
  fieldSchemas: { status: { type: 'string', enum: [...POST_STATUSES] } },
  computed: {
    tags: { schema: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' }, description: 'The slugs of its tags, in order' }, xmlItem: 'tag' },
  },
  events: {
    postCreated: 'A post was written',
    postUpdated: 'A post was changed',
    postDeleted: 'A post was deleted (a COMMENT_DELETED for each of its comments comes before it)',
    postPublished: 'A post became public (published by an edit or by its schedule)',
    postUnpublished: 'A public post stopped being public (back to draft, in review or scheduled, or trashed): ids only',
    postSubmitted: 'A post was submitted for review (it became in_review): for its author, editors and admins only',
    postReviewed: 'A reviewer decided on a post in review (approved: published or scheduled; changes requested: back to draft), with the post as it now is: for its author, editors and admins only',
  },
  eventRefs: {
    postId: {
      field: 'id',
      description: 'The post it is about (for a comment event, the post the comment is on)',
      filter: 'Only events about this post (for comment events: the post they are on)',
    },
    authorId: { field: 'authorId', description: 'The author of the post or comment it is about', filter: 'Only events about posts and comments by this user' },
  },
});

declare module '../events/blog-events.js' {
  interface BlogEvents {
    postCreated: Post;
    postUpdated: Post;
    /** A post became public (by a PATCH, a restore or its schedule): the post. */
    postPublished: Post;
    /** A public post stopped being public (draft, in review, scheduled or trashed): its ids only. */
    postUnpublished: { id: number; authorId: number };
    postDeleted: { id: number; authorId: number };
    /** A post entered in_review: the post (audience: its author and the reviewers). */
    postSubmitted: Post;
    /** A decision on a post in review (GET /posts/{id}/reviews lists them): the post after it (audience: its author and the reviewers). */
    postReviewed: Post;
  }
}
