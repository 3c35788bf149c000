import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { EntityKey } from '../common/graphql/entity-reference.js';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import type { PostStatus } from '../auth/read-policy.js';
import { User } from '../users/user.entity.js';
import { GraphQLPostStatus } from './models/post-status.enum.js';

/** Also the GraphQL `Post` type (author, comments and commentCount are resolved fields; never the version). */
@EntityKey()
@ObjectType('Post', { description: 'A blog post' })
@Entity({ name: 'posts' })
@Index('idx_posts_author_id_id', ['authorId', 'id'])
export class Post {
  @Field(() => Int, { description: 'The post\'s id' })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String, { description: 'The title (1-200 characters)' })
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Field(() => String, { description: 'The text, as written' })
  @Column({ type: 'text' })
  body: string;

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
