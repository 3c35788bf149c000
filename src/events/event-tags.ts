import { commentsTag, POSTS_TAG, postTag } from '../common/cache/read-tags.js';

/** A write's event as far as the response cache cares: its name and the post it is about (`refs.postId`). */
export interface TouchingEvent {
  name: string;
  postId: number | null;
}

const COMMENT_EVENTS: ReadonlySet<string> = new Set(['commentCreated', 'commentUpdated', 'commentDeleted']);
const POST_EVENTS: ReadonlySet<string> = new Set(['postCreated', 'postUpdated', 'postPublished', 'postUnpublished', 'postDeleted', 'postSubmitted', 'postReviewed']);

/**
 * The response cache's tags (read-tags.ts) a write's events touch, or null for everything: a
 * comment's drop its post's comments; a post's drop the post, its comments (a post's state
 * decides whether they show) and every list of posts (and of tags, which count posts). Any other
 * event (a tag's, say), and a write that recorded none, drop everything.
 */
export function tagsOfEvents(events: Iterable<TouchingEvent>): string[] | null {
  const tags = new Set<string>();
  for (const { name, postId } of events) {
    if (postId === null) return null;
    if (COMMENT_EVENTS.has(name)) {
      tags.add(commentsTag(postId));
    } else if (POST_EVENTS.has(name)) {
      tags.add(postTag(postId));
      tags.add(commentsTag(postId));
      tags.add(POSTS_TAG);
    } else {
      return null;
    }
  }
  return tags.size > 0 ? [...tags] : null;
}
