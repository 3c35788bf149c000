import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { GraphQLReviewDecision, type ReviewDecision } from './models/review-decision.enum.js';

/**
 * One decision of an editor or admin on a post that was in review (CONTRACT §16); also the
 * GraphQL `PostReview` type. Decisions never change, so their ETag is their id (`version`, not a column).
 */
@ObjectType('PostReview', { description: 'A decision on a post that was in review' })
@Entity({ name: 'post_reviews' })
export class PostReview {
  @Field(() => Int, { description: "The decision's id (GET /posts/{postId}/reviews/{id})" })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => Int, { description: 'The post reviewed' })
  @Column({ name: 'post_id', type: 'integer' })
  postId: number;

  @Field(() => Int, { nullable: true, description: 'Who decided; null once that user is deleted' })
  @Column({ name: 'reviewer_id', type: 'integer', nullable: true })
  reviewerId: number | null;

  @Field(() => GraphQLReviewDecision, { description: 'APPROVE (published or scheduled) or REQUEST_CHANGES (back to draft)' })
  @Column({ type: 'varchar', length: 16 })
  decision: ReviewDecision;

  @Field(() => String, { nullable: true, description: "The reviewer's note to the author" })
  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Field(() => GraphQLISODateTime, { description: 'When' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  get version(): number {
    return this.id;
  }
}
