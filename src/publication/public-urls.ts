import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';

/** What PUBLIC_POST_URL's placeholders read of a post. */
export interface PublicPost {
  id: number;
  slug: string;
  publishedAt: Date | null;
  createdAt: Date;
  locale?: string;
}

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * The absolute addresses the service writes (feeds, sitemaps, preview links, canonical and Open
 * Graph URLs): PUBLIC_BASE_URL (default `http://localhost:{PORT}`) and the PUBLIC_POST_URL template.
 */
@Injectable()
export class PublicUrls {
  /** The base without a trailing `/`. */
  readonly base: string;
  /** Its origin (`https://blog.example.com`), to tell links to other origins. */
  readonly origin: string;
  private readonly postTemplate: string;
  private readonly defaultLocale: string;

  constructor(config: AppConfig) {
    this.defaultLocale = config.defaultLocale;
    this.base = (config.publicBaseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
    this.origin = new URL(this.base).origin;
    this.postTemplate = config.publicPostUrl;
  }

  /** A path of the service (`/feed`) as an absolute URL. */
  absolute(path: string): string {
    return `${this.base}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /** Where the post lives on the public site; a post never published is dated by its creation. */
  post(post: PublicPost): string {
    const date = post.publishedAt ?? post.createdAt;
    const values: Record<string, string> = {
      base: this.base,
      id: String(post.id),
      slug: encodeURIComponent(post.slug),
      locale: post.locale ?? this.defaultLocale,
      yyyy: String(date.getUTCFullYear()),
      mm: pad(date.getUTCMonth() + 1),
      dd: pad(date.getUTCDate()),
    };
    return this.postTemplate.replace(/\{(base|id|slug|locale|yyyy|mm|dd)\}/g, (_, name: string) => values[name]);
  }
}
