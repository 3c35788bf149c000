import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { PageLimit, TIME_CURSOR_PATTERN, toInteger } from '../../common/pagination/cursor.js';
import { DATE_TIME_PATTERN, IsDateTime, toDate } from '../../common/validation/transforms.js';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { AUDIT_ACTION_NAMES, AUDIT_RESOURCE_TYPES } from '../audit-actions.js';
import type { AuditFilter } from '../audit-entries.repository.js';

const ID_MESSAGE = (name: string) => ({ message: `${name} must be a positive integer` });
const DATE_MESSAGE = (name: string) => ({ message: `${name} must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T09:00:00Z` });

/** GET /audit: the filters of CONTRACT §16 (times exclusive), `limit` and `cursor`. */
export class ListAuditQuery {
  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque; from the Link rel="next" of the previous page', pattern: TIME_CURSOR_PATTERN })
  @IsOptional()
  @IsString({ message: 'cursor is not a cursor this service issued' })
  @MaxLength(64, { message: 'cursor is not a cursor this service issued' })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'Only what this user did' })
  @Max(MAX_INT32, ID_MESSAGE('actorId'))
  @Min(1, ID_MESSAGE('actorId'))
  @IsInt(ID_MESSAGE('actorId'))
  @Transform(toInteger)
  @IsOptional()
  actorId?: number;

  @ApiPropertyOptional({ type: 'string', enum: [...AUDIT_ACTION_NAMES], description: 'Only this action (docs/audit.md lists them)' })
  @IsIn(AUDIT_ACTION_NAMES, { message: 'action must be one of the audit actions (docs/audit.md)' })
  @IsOptional()
  action?: string;

  @ApiPropertyOptional({ type: 'string', enum: [...AUDIT_RESOURCE_TYPES], description: 'Only entries on resources of this type' })
  @IsIn(AUDIT_RESOURCE_TYPES, { message: `resourceType must be one of ${AUDIT_RESOURCE_TYPES.join(', ')}` })
  @IsOptional()
  resourceType?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'Only entries on this resource (with resourceType; 400 without it)' })
  @Max(MAX_INT32, ID_MESSAGE('resourceId'))
  @Min(1, ID_MESSAGE('resourceId'))
  @IsInt(ID_MESSAGE('resourceId'))
  @Transform(toInteger)
  @IsOptional()
  resourceId?: number;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN, description: 'Entries recorded after this time (exclusive)' })
  @IsDateTime(DATE_MESSAGE('after'))
  @Transform(toDate)
  @IsOptional()
  after?: Date;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN, description: 'Entries recorded before this time (exclusive)' })
  @IsDateTime(DATE_MESSAGE('before'))
  @Transform(toDate)
  @IsOptional()
  before?: Date;
}

/** The filter of a query (limit and cursor aside). */
export function auditFilterOf(query: ListAuditQuery): AuditFilter {
  const { actorId, action, resourceType, resourceId, after, before } = query;
  return { actorId, action, resourceType, resourceId, after, before };
}
