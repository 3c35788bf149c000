import { ArgsType, Field, Int } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { MaxChars, OMITTED_OR_NOT_NULL, REQUIRED } from '../../common/validation/transforms.js';
import { GraphQLReviewDecision, REVIEW_DECISIONS, type ReviewDecision } from '../models/review-decision.enum.js';

/** The longest note a reviewer may leave. */
export const MAX_REVIEW_NOTE_LENGTH = 2000;
export const NOTE_MESSAGE = { message: `note must be at most ${MAX_REVIEW_NOTE_LENGTH} characters` };

/** The body of POST /posts/{id}/reviews (GraphQL: reviewPost's arguments, checked by the same rules). */
@ArgsType()
export class ReviewPostDto {
  @Field(() => GraphQLReviewDecision, { description: 'APPROVE publishes it (schedules it when its publishAt is in the future); REQUEST_CHANGES returns it to draft' })
  @ApiProperty({ type: 'string', enum: [...REVIEW_DECISIONS], description: '"approve" publishes it (schedules it when its publishAt is in the future); "request_changes" returns it to draft' })
  @IsIn(REVIEW_DECISIONS, { message: 'decision must be "approve" or "request_changes"' })
  @IsDefined(REQUIRED)
  decision: ReviewDecision;

  @Field(() => String, { nullable: true, description: `A note to the author (at most ${MAX_REVIEW_NOTE_LENGTH} characters)` })
  @ApiPropertyOptional({ type: 'string', maxLength: MAX_REVIEW_NOTE_LENGTH, nullable: true, description: 'A note to the author' })
  @MaxChars(MAX_REVIEW_NOTE_LENGTH, NOTE_MESSAGE)
  @IsString(NOTE_MESSAGE)
  @ValidateIf(OMITTED_OR_NOT_NULL)
  @IsOptional()
  note?: string | null;
}

/** GraphQL reviewPost(id, decision, note). */
@ArgsType()
export class ReviewPostArgs extends ReviewPostDto {
  @Field(() => Int, { description: 'The id of the post in review' })
  @Max(MAX_INT32, { message: 'id must be a post id' })
  @Min(1, { message: 'id must be a post id' })
  @IsInt({ message: 'id must be a post id' })
  id: number;
}
