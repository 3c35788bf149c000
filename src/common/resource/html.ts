/** An author's avatar beside a byline, for the HTML templates of resources that have an author (`it.author`). */
export const AVATAR_TEMPLATE = `<% if (it.author && it.author.avatarUrl) { %><img class="avatar" src="<%= it.author.avatarUrl %>" alt="<%= it.author.name %>"><% } %>`;

/** The "next page" link of every HTML list. */
export const NEXT_PAGE_TEMPLATE = `<% if (it.nextHref) { %><p><a rel="next" href="<%= it.nextHref %>">Next page</a></p><% } %>`;
