import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { EntityKey } from '../common/graphql/entity-reference.js';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import type { PostStatus } from '../auth/read-policy.js';
import { User } from '../users/user.entity.js';
import { GraphQLPostStatus } from './models/post-status.enum.js';
import { type BodyFormat, GraphQLBodyFormat } from '../content/body-format.js';

/** Another post of a translation group: its id and locale. */
export interface PostTranslation {
  id: number;
  locale: string;
}

/** Another post of its group as a read brings it: what the read policy needs beside id and locale. */
export interface GroupMember extends PostTranslation {
  status: PostStatus;
  authorId: number;
}

/** Also the GraphQL `Post` type (author, comments and commentCount are resolved fields; never the version). */
@EntityKey()
@ObjectType('Post', { description: 'A blog post' })
@Entity({ name: 'posts' })
@Index('idx_posts_author_id_id', ['authorId', 'id'])
@Index('idx_posts_slug', ['slug'])
export class Post {
  @Field(() => Int, { description: 'The post\'s id' })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String, { description: 'The title (1-200 characters)' })
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Field(() => String, { description: 'Its address on the public site: lower-case a-z0-9-, 1-120 characters, unique (former slugs still find it)' })
  @Column({ type: 'varchar', length: 120 })
  slug: string;

  @Field(() => String, { description: 'The text, as written' })
  @Column({ type: 'text' })
  body: string;

  @Field(() => GraphQLBodyFormat, { description: 'How body is written: PLAIN (the default), MARKDOWN or HTML' })
  @Column({ name: 'body_format', type: 'varchar', length: 8, default: 'plain', enum: ['plain', 'markdown', 'html'] })
  bodyFormat: BodyFormat;

  @Field(() => String, { description: 'The body rendered to HTML and sanitized by the allowlist (read-only)' })
  @Column({ name: 'body_html', type: 'text' })
  bodyHtml: string;

  @Field(() => String, { description: 'A plain-text summary: the one given, or the start of the body (at most 300 characters)' })
  @Column({ type: 'varchar', length: 600 })
  excerpt: string;

  /** The excerpt as given (null: derived from the body), so a new body re-derives only a derived one. */
  @Column({ name: 'custom_excerpt', type: 'varchar', length: 500, nullable: true, select: false })
  customExcerpt?: string | null;

  @Field(() => Int, { description: 'Minutes to read it: its words / 230, rounded up, at least 1' })
  @Column({ name: 'reading_time_minutes', type: 'integer', default: 1 })
  readingTimeMinutes: number;

  @Field(() => String, { nullable: true, description: 'The title for search engines and social cards (at most 70 characters); null: the title' })
  @Column({ name: 'meta_title', type: 'varchar', length: 70, nullable: true })
  metaTitle: string | null;

  @Field(() => String, { nullable: true, description: 'The description for search engines and social cards (at most 200 characters); null: the excerpt' })
  @Column({ name: 'meta_description', type: 'varchar', length: 200, nullable: true })
  metaDescription: string | null;

  @Field(() => String, { nullable: true, description: 'Where the canonical copy lives (an absolute http(s) URL); null: PUBLIC_POST_URL' })
  @Column({ name: 'canonical_url', type: 'varchar', length: 2048, nullable: true })
  canonicalUrl: string | null;

  @Field(() => Int, { nullable: true, description: 'The id of its cover image (a media item); null: none' })
  @Column({ name: 'cover_image_id', type: 'integer', nullable: true })
  coverImageId: number | null;

  /** Bumped by DELETE /posts/{id}/previews: every preview token signed with an earlier stamp stops opening it. */
  @Column({ name: 'preview_stamp', type: 'integer', default: 0, select: false })
  previewStamp?: number;

  @Field(() => String, { description: 'The language it is written in: a BCP 47 tag of SUPPORTED_LOCALES (default DEFAULT_LOCALE)' })
  @Column({ type: 'varchar', length: 35 })
  locale: string;

  /**
   * Its translation group: the id of the group's first post; null while the group is its own
   * (the group is then its id: `COALESCE(translation_group_id, id)`). One post per locale and
   * group (idx_posts_translation_locale, on that expression).
   */
  @Column({ name: 'translation_group_id', type: 'integer', nullable: true, select: false })
  translationGroupId?: number | null;

  /**
   * Its group's place in the public lists: the first publication of any post of the group (the
   * same on each); a post of a group of its own: its publishedAt. Read by the lists (their cursors).
   */
  @Column({ name: 'group_published_at', type: Date, nullable: true, select: false })
  groupPublishedAt?: Date | null;

  /** Whether other posts share its group: read by the write path (findForUpdate), for its publication. */
  sharesGroup?: boolean;

  /**
   * The other posts of its group that the reader may see (id and locale), set by the door that
   * read them for this reader (`_links.translations`); undefined: not read.
   */
  translations?: PostTranslation[];

  /**
   * Every other post of its group, whatever its state, read with the row (with more than one
   * supported locale); doors show the ones the reader may see as `translations`. Never in a view.
   */
  groupMembers?: GroupMember[];

  @Field(() => Int, { description: 'The id of the user who wrote it' })
  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'author_id', foreignKeyConstraintName: 'FK_posts_author' })
  author?: User;

  @Field(() => GraphQLPostStatus, { description: 'Where it is in its editorial life; only PUBLISHED posts are public' })
  @Column({ type: 'varchar', length: 16, default: 'published' })
  status: PostStatus;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When a SCHEDULED post is to be published; null otherwise' })
  @Column({ name: 'publish_at', type: Date, nullable: true })
  publishAt: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When it was first published; null while it never was' })
  @Column({ name: 'published_at', type: Date, nullable: true })
  publishedAt: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When it was moved to the trash; null unless TRASHED' })
  @Column({ name: 'trashed_at', type: Date, nullable: true })
  trashedAt: Date | null;

  @Field(() => GraphQLISODateTime, { description: 'When it was written' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, { description: 'When it last changed' })
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;

  /** The slugs of its tags, by slug: read with the row (no column; GraphQL's Post.tags resolves Tag objects). */
  tags?: string[];

  /** The ids of those tags, in the order of `tags` (for their links), when read with them; never in the event log. */
  tagIds?: number[];
}
