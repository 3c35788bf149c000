import type { ResourceView } from '../../../common/resource/resource.js';

/** A comment's view on a page, with the replies shown under it. */
export type ThreadedView = ResourceView & { replies: ThreadedView[] };

/**
 * The comments of one page as threads: each reply under its parent when the parent is on the
 * page too, else at the top with a link to it. Views come oldest first, so do replies.
 */
export function threaded(views: readonly ResourceView[]): ThreadedView[] {
  const nodes = new Map<unknown, ThreadedView>(views.map((view) => [view.id, { ...view, replies: [] }]));
  const roots: ThreadedView[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId === null || node.parentId === undefined ? undefined : nodes.get(node.parentId);
    (parent ? parent.replies : roots).push(node);
  }
  return roots;
}

/**
 * Eta: `thread(list)` writes nested `<ol class="comments">` of ThreadedViews (with their
 * `authorName`: withAuthorNames). A function of the template itself, so it writes into the same output.
 */
export const COMMENT_THREAD_TEMPLATE = `<% function thread(list) { %><ol class="comments">
<% list.forEach(function (c) { %><li id="comment-<%= c.id %>"><strong><a href="<%= c._links.author.href %>"><%= c.authorName %></a></strong> <time datetime="<%= c.createdAt %>"><%= c.createdAt %></time><% if (c._links.parent) { %> <a rel="parent" href="<%= c._links.parent.href %>">in reply to comment <%= c.parentId %></a><% } %><div class="body"><%= c.body %></div><a href="<%= c._links.self.href %>">link</a><% if (c.replies.length > 0) { thread(c.replies); } %></li>
<% }) %></ol>
<% } %>`;
