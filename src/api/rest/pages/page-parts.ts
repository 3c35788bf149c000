/** An author's avatar beside a byline, for the templates of pages that show an author (`it.author`, with `it.avatar`: avatarSource). */
export const AVATAR_TEMPLATE = `<% if (it.author) { %><img class="avatar" src="<%= it.avatar(it.author) %>" alt="<%= it.author.name %>"><% } %>`;

/** The "next page" link of every list. */
export const NEXT_PAGE_TEMPLATE = `<% if (it.nextHref) { %><p><a rel="next" href="<%= it.nextHref %>">Next page</a></p><% } %>`;

/** A post's tags as links to the public posts carrying each (`view` the template's expression of the post). */
export const TAGS_TEMPLATE = (view: string) =>
  `<% if (${view}.tags && ${view}.tags.length) { %><ul class="tags"><% ${view}.tags.forEach(function (slug) { %><li><a rel="tag" href="/posts?tag=<%= encodeURIComponent(slug) %>"><%= slug %></a></li><% }) %></ul><% } %>`;

const AVATAR_COLOURS = ['#0b57d0', '#188038', '#b3261e', '#8e24aa', '#e37400', '#007b83'];

/**
 * Where a person's avatar comes from: their `avatarUrl`, else a picture of their initials as an
 * inline `data:` SVG, so a page never needs another host for it.
 */
export function avatarSource(person: { name?: unknown; avatarUrl?: unknown }): string {
  if (typeof person.avatarUrl === 'string' && person.avatarUrl !== '') return person.avatarUrl;
  const name = typeof person.name === 'string' ? person.name : '';
  const initials = name
    .split(/\s+/)
    .map((word) => Array.from(word).find((char) => /[\p{L}\p{N}]/u.test(char)))
    .filter((char): char is string => char !== undefined)
    .slice(0, 2)
    .join('')
    .toUpperCase();
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  const colour = AVATAR_COLOURS[hash % AVATAR_COLOURS.length];
  // Initials are letters and digits only: nothing to escape inside the SVG.
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="${colour}"/>` +
    `<text x="32" y="42" font-family="sans-serif" font-size="26" text-anchor="middle" fill="#fff">${initials}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}
