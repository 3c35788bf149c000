import { Injectable } from '@nestjs/common';
import type { BodyFormat } from './body-format.js';
import { derivedExcerpt, plainTextToHtml, readingTimeMinutes } from './plain-text.js';

/** A post's body as it is stored beside its source, rendered once on write. */
export interface RenderedBody {
  bodyHtml: string;
  /** The body's text without markup (for the derived excerpt and the reading time). */
  text: string;
  readingTimeMinutes: number;
}

/**
 * Renders bodies to safe HTML on write (CONTRACT §13): a read never parses Markdown.
 * TODO(render lane): Markdown and HTML through markdown-it and the sanitizer's allowlist.
 */
@Injectable()
export class ContentRenderer {
  renderPost(body: string, format: BodyFormat): RenderedBody {
    const bodyHtml = format === 'plain' ? plainTextToHtml(body) : plainTextToHtml(body);
    const text = body;
    return { bodyHtml, text, readingTimeMinutes: readingTimeMinutes(text) };
  }

  /** The excerpt: the one given, else derived from the rendered text. */
  excerptOf(rendered: RenderedBody): string {
    return derivedExcerpt(rendered.text);
  }

  renderComment(body: string): string {
    return plainTextToHtml(body);
  }
}
