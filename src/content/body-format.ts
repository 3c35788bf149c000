import { registerEnumType } from '@nestjs/graphql';

/** How a post's `body` is written (CONTRACT §13); `plain` is v1's text. */
export const BODY_FORMATS = ['plain', 'markdown', 'html'] as const;
export type BodyFormat = (typeof BODY_FORMATS)[number];

/** GraphQL's `BodyFormat` enum: its values stand for the stored (and REST) strings. */
export const GraphQLBodyFormat = {
  PLAIN: 'plain',
  MARKDOWN: 'markdown',
  HTML: 'html',
} as const satisfies Record<string, BodyFormat>;

registerEnumType(GraphQLBodyFormat, {
  name: 'BodyFormat',
  description: 'How a body is written; bodyHtml is its sanitized rendering whatever the format',
  valuesMap: {
    PLAIN: { description: 'Plain text (paragraphs by blank lines)' },
    MARKDOWN: { description: 'CommonMark with GFM tables, strikethrough and autolinks' },
    HTML: { description: 'HTML, kept as written in body and sanitized by the allowlist in bodyHtml' },
  },
});
