export interface Link {
  href: string;
  /** HAL's secondary key among the links of one rel (a tag's slug among a post's tags). */
  name?: string;
  /** The language of what it leads to (a post's translations), as a BCP 47 tag. */
  hreflang?: string;
}
/** Rel → a link, or (a post's tags) an array of links. */
export type Links = Record<string, Link | Link[]>;

/**
 * The links one by one, for formats that write each as its own element (XML's `<link>`, HTML's
 * `<a>`): an array's entries under the rel `single` gives it (`tags` → `tag`), else its own.
 */
export function eachLink(links: Links, single?: (rel: string) => string | undefined): { rel: string; link: Link }[] {
  const entries: { rel: string; link: Link }[] = [];
  for (const [rel, value] of Object.entries(links)) {
    if (!Array.isArray(value)) entries.push({ rel, link: value });
    else for (const link of value) entries.push({ rel: single?.(rel) ?? rel, link });
  }
  return entries;
}
