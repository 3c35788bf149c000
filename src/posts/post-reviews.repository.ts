import { Injectable } from '@nestjs/common';
import { encodeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { postTag, recordReadIds } from '../common/cache/read-tags.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import type { ReviewDecision } from './models/review-decision.enum.js';
import { PostReview } from './post-review.entity.js';

const reviewCursor = (review: PostReview) => encodeCursor(review.id);

/** sql.raw, where the constructor's `sql` (the Sql) hides the tag. */
const raw = (text: string): Fragment => sql.raw(text);

/** `post_reviews`: one row per decision, written by the review's transaction, read newest first. */
@Injectable()
export class PostReviewsRepository {
  private readonly table: EntityTable<PostReview>;
  private readonly select: Fragment;
  private readonly returning: Fragment;

  constructor(private readonly sql: Sql) {
    this.table = sql.table(PostReview);
    this.select = raw(this.table.selectList('r'));
    this.returning = raw(this.table.returningList);
  }

  async insert(review: { postId: number; reviewerId: number; decision: ReviewDecision; note: string | null; createdAt: Date }, executor: Executor): Promise<PostReview> {
    const statement = sql`INSERT INTO post_reviews (post_id, reviewer_id, decision, note, created_at) VALUES (${review.postId}, ${review.reviewerId}, ${review.decision}, ${review.note}, ${this.sql.timestamp(review.createdAt)}) RETURNING ${this.returning}`;
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, executor);
    return this.table.fromRow(row);
  }

  /** One post's decisions, newest first, keyset-paged on the id. */
  async page(postId: number, request: PageRequest): Promise<Page<PostReview>> {
    recordReadIds(postTag, [postId]);
    const after = request.after === undefined ? sql.empty : sql` AND r.id < ${request.after}`;
    const statement = sql`SELECT ${this.select} FROM post_reviews r WHERE r.post_id = ${postId}${after} ORDER BY r.id DESC LIMIT ${request.limit + 1}`;
    const rows = await this.sql.rows<Record<string, unknown>>(statement);
    return toPage(rows.map((row) => this.table.fromRow(row)), request.limit, reviewCursor);
  }

  async find(postId: number, id: number): Promise<PostReview | null> {
    recordReadIds(postTag, [postId]);
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM post_reviews r WHERE r.post_id = ${postId} AND r.id = ${id}`);
    return row ? this.table.fromRow(row) : null;
  }
}
