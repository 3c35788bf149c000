import { Injectable } from '@nestjs/common';
import { PublicUrls } from '../publication/public-urls.js';
import type { BodyFormat } from './body-format.js';
import type { BodyMediaLookup, ContentEngine, RenderedBody } from './content-engine.js';
import { derivedExcerpt, plainTextToHtml, readingTimeMinutes } from './plain-text.js';

export type { BodyMedia, BodyMediaLookup, RenderedBody } from './content-engine.js';

/** The engine module, imported once per process, on the first body that needs it. */
let engineModule: Promise<typeof import('./content-engine.js')> | undefined;

/** Whether a body of this format is rendered by the engine (plain text needs none). */
const needsEngine = (format: BodyFormat): boolean => format === 'markdown' || format === 'html';

/**
 * Renders bodies to safe HTML on write (CONTRACT §13): a read never parses Markdown. The work is
 * ContentEngine's; markdown-it and sanitize-html are loaded on the first Markdown, HTML or
 * comment body (not at start-up: most processes serve reads), plain text needs neither.
 */
@Injectable()
export class ContentRenderer {
  private engineOnce: Promise<ContentEngine> | undefined;

  constructor(private readonly urls: PublicUrls) {}

  /** The synchronous engine with this renderer's URLs (loading its libraries the first time). */
  engine(): Promise<ContentEngine> {
    this.engineOnce ??= (engineModule ??= import('./content-engine.js')).then(({ ContentEngine }) => new ContentEngine(this.urls));
    return this.engineOnce;
  }

  /**
   * Loads what a body of this format will need (all of it for a format not known yet), for a
   * write to call before its transaction: the first import takes tens of milliseconds, and a
   * transaction that waits for it holds the database's write lock meanwhile.
   */
  async prepare(format: BodyFormat | undefined): Promise<void> {
    if (format === undefined || needsEngine(format)) await this.engine();
  }

  /** A post's body as safe HTML (ContentEngine.renderPost). */
  async renderPost(body: string, format: BodyFormat, media?: BodyMediaLookup): Promise<RenderedBody> {
    if (!needsEngine(format)) return { bodyHtml: plainTextToHtml(body), text: body, readingTimeMinutes: readingTimeMinutes(body) };
    return (await this.engine()).renderPost(body, format, media);
  }

  /** The ids of the media items the body shows as images (ContentEngine.mediaIdsOf). */
  async mediaIdsOf(body: string, format: BodyFormat): Promise<number[]> {
    if (!needsEngine(format)) return [];
    return (await this.engine()).mediaIdsOf(body, format);
  }

  /** The excerpt: the one given, else derived from the rendered text. */
  excerptOf(rendered: RenderedBody): string {
    return derivedExcerpt(rendered.text);
  }

  /** A comment as sanitized HTML (ContentEngine.renderComment). */
  async renderComment(body: string): Promise<string> {
    return (await this.engine()).renderComment(body);
  }
}
