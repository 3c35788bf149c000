import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { EntityKey } from '../common/graphql/entity-reference.js';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import type { CommentStatus } from '../auth/read-policy.js';
import { Post } from '../posts/post.entity.js';
import { User } from '../users/user.entity.js';
import { GraphQLCommentStatus } from './models/comment-status.enum.js';

/** Also the GraphQL `Comment` type (author and post are resolved fields; never the version). */
@EntityKey()
@ObjectType('Comment', { description: 'A comment on a post' })
@Entity({ name: 'comments' })
@Index('idx_comments_post_id_id', ['postId', 'id'])
@Index('idx_comments_author_id_id', ['authorId', 'id'])
@Index('idx_comments_parent_id', ['parentId', 'id'])
@Index('idx_comments_post_status', ['postId', 'status', 'id'])
export class Comment {
  @Field(() => Int, { description: 'The comment\'s id' })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => Int, { description: 'The id of the post it is on' })
  @Column({ name: 'post_id', type: 'integer' })
  postId: number;

  @ManyToOne(() => Post, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'post_id', foreignKeyConstraintName: 'FK_comments_post' })
  post?: Post;

  @Field(() => Int, { nullable: true, description: 'The comment it replies to (on the same post); null: a top-level comment' })
  @Column({ name: 'parent_id', type: 'integer', nullable: true })
  parentId: number | null;

  @ManyToOne(() => Comment, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'parent_id', foreignKeyConstraintName: 'FK_comments_parent' })
  parent?: Comment | null;

  /**
   * 1 for a top-level comment, its parent's + 1 for a reply (at most COMMENTS_MAX_DEPTH). Written
   * with the row, never read back with it (not part of a representation: the thread shows it).
   */
  @Column({ type: 'integer', default: 1, select: false })
  depth: number;

  @Field(() => GraphQLCommentStatus, { description: 'Its moderation status; only APPROVED comments are public' })
  @Column({ type: 'varchar', length: 16, default: 'approved' })
  status: CommentStatus;

  @Field(() => String, { description: 'The text, as written' })
  @Column({ type: 'text' })
  body: string;

  @Field(() => String, { description: 'The body rendered as restricted Markdown (no headings, images or raw HTML; links nofollow ugc), sanitized (read-only)' })
  @Column({ name: 'body_html', type: 'text' })
  bodyHtml: string;

  @Field(() => Int, { description: 'The id of the user who wrote it' })
  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'author_id', foreignKeyConstraintName: 'FK_comments_author' })
  author?: User;

  @Field(() => GraphQLISODateTime, { description: 'When it was written' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, { description: 'When it last changed' })
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;
}
