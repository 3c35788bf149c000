const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char]);

/**
 * A plain-text body as HTML: escaped, paragraphs at blank lines, `<br>` at single line breaks.
 * Migration 1765500000000 rendered the existing posts with a copy of it.
 */
export function plainTextToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
}

/** The words of a text, for the reading time. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

/** Minutes at 230 words a minute, rounded up, at least 1 (CONTRACT §13). */
export function readingTimeMinutes(text: string): number {
  return Math.max(1, Math.ceil(wordCount(text) / 230));
}

/** The text of a body without markup, cut at a word before 300 characters, `…` added when cut (CONTRACT §13). */
export function derivedExcerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length < max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 0 ? cut.slice(0, space) : cut).replace(/[\s.,;:!?-]+$/u, '')}…`;
}
