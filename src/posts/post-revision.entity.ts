import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PostStatus } from '../auth/read-policy.js';
import { GraphQLPostStatus } from './models/post-status.enum.js';

/**
 * One numbered state of a post (CONTRACT §7): every change of its title, body or status records
 * one, creation being number 1. Also the GraphQL `PostRevision` type. Revisions never change, so
 * their ETag is their number (`version`, not a column).
 */
@ObjectType('PostRevision', { description: "One numbered state of a post's title, body and status" })
@Entity({ name: 'post_revisions' })
export class PostRevision {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'post_id', type: 'integer' })
  postId: number;

  @Field(() => Int, { description: 'Its number: 1 for the creation, then 2, 3… per post' })
  @Column({ type: 'integer' })
  number: number;

  @Field(() => String, { description: 'The title as it then was' })
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Field(() => String, { description: 'The body as it then was' })
  @Column({ type: 'text' })
  body: string;

  @Field(() => GraphQLPostStatus, { description: 'The status as it then was' })
  @Column({ type: 'varchar', length: 16 })
  status: PostStatus;

  @Field(() => Int, { nullable: true, description: 'Who made the change; null for the scheduler or a deleted user' })
  @Column({ name: 'editor_id', type: 'integer', nullable: true })
  editorId: number | null;

  @Field(() => GraphQLISODateTime, { description: 'When' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  get version(): number {
    return this.number;
  }
}
