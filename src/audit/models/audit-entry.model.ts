import { ArgsType, Field, GraphQLISODateTime, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { GraphQLJSON } from '../../common/graphql/json.scalar.js';
import { PageInfo } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { IsDateTime } from '../../common/validation/transforms.js';
import type { AuditCredential } from '../audit-entry.entity.js';
import type { AuditFilter } from '../audit-entries.repository.js';
import type { AuditEntryRecord } from '../audit-entry.view.js';

/** GraphQL's `AuditCredential`: its values stand for the REST strings. */
export const GraphQLAuditCredential = {
  TOKEN: 'token',
  API_KEY: 'api-key',
  SSO: 'sso',
  SYSTEM: 'system',
} as const satisfies Record<string, AuditCredential>;

registerEnumType(GraphQLAuditCredential, {
  name: 'AuditCredential',
  description: 'How the actor of an audit entry proved who they were',
  valuesMap: {
    TOKEN: { description: 'A bearer token of the service (a password sign-in)' },
    API_KEY: { description: 'An API key (AuditActor.keyId names it)' },
    SSO: { description: "An identity provider's token (single sign-on)" },
    SYSTEM: { description: 'The service itself: the scheduler, a retention job' },
  },
});

@ObjectType('AuditActor', { description: 'Who made a change: a user, the system, or nobody (a failed sign-in)' })
export class AuditActorModel {
  @Field(() => Int, { nullable: true, description: 'The user who acted; null for the system and for a failed sign-in' })
  userId: number | null;

  @Field(() => GraphQLAuditCredential, { nullable: true, description: 'How they proved who they were; null for a failed sign-in' })
  credential: AuditCredential | null;

  @Field(() => Int, { nullable: true, description: 'The API key they acted with; null unless API_KEY' })
  keyId?: number;
}

@ObjectType('AuditResource', { description: 'The resource an audit entry is about' })
export class AuditResourceModel {
  @Field(() => String, { description: 'Its type, singular: post, comment, tag, user, apiKey, webhook, media' })
  type: string;

  @Field(() => Int, { nullable: true, description: 'Its id; null where it has none (a failed sign-in for an unknown e-mail)' })
  id: number | null;
}

@ObjectType('AuditEntry', { description: 'One entry of the audit log: who did what to which resource, from where (admins)' })
export class AuditEntryModel implements AuditEntryRecord {
  @Field(() => Int, { description: "The entry's id (GET /audit/{id})" })
  id: number;

  @Field(() => GraphQLISODateTime, { description: 'When the change was committed' })
  at: Date;

  @Field(() => AuditActorModel, { description: 'Who acted' })
  actor: AuditActorModel;

  @Field(() => String, { description: 'What was done: an action of the audit table (docs/audit.md), e.g. posts.update, auth.signIn' })
  action: string;

  @Field(() => AuditResourceModel, { description: 'What it was done to' })
  resource: AuditResourceModel;

  @Field(() => GraphQLJSON, { description: 'The fields that changed, each {from, to}; secret fields are named, their values "[redacted]"' })
  changes: Record<string, { from: unknown; to: unknown }>;

  @Field(() => String, { nullable: true, description: 'The client address (per TRUST_PROXY); null for the system' })
  ip: string | null;

  @Field(() => String, { nullable: true, description: "The client's User-Agent" })
  userAgent: string | null;

  @Field(() => String, { nullable: true, description: 'The request id (X-Request-Id) of the request or operation that made the change' })
  requestId: string | null;

  @Field(() => String, { nullable: true, description: 'The trace of the change, when tracing is on' })
  traceId: string | null;
}

@ObjectType('AuditEntryEdge', { description: 'An AuditEntry with its cursor' })
export class AuditEntryEdge {
  @Field(() => String, { description: 'The cursor of this entry: pass it as `after` for the older entries' })
  cursor: string;

  @Field(() => AuditEntryModel, { description: 'The entry' })
  node: AuditEntryModel;
}

/** A page of the audit log, newest first. `totalCount` is a resolved field, counted only when selected. */
@ObjectType('AuditEntryConnection', { description: 'A page of the audit log, newest first' })
export class AuditEntryConnection {
  @Field(() => [AuditEntryEdge], { description: 'The entries of this page, each with its cursor' })
  edges: AuditEntryEdge[];

  @Field(() => [AuditEntryModel], { description: "The entries of this page (the edges' nodes, without cursors)" })
  nodes: AuditEntryModel[];

  @Field(() => PageInfo, { description: 'Where this page stands in the log, and the cursor for the next page' })
  pageInfo: PageInfo;

  /** Not a field: what totalCount counts. */
  filter: AuditFilter;
}

const ID_MESSAGE = (name: string) => ({ message: `${name} must be a positive integer` });
const DATE_MESSAGE = (name: string) => ({ message: `${name} must be a date-time between years 0001 and 9999` });

/**
 * Query.auditEntries: GET /audit's filters. `after` is the cursor, as on every connection; the
 * times GET /audit calls `after` and `before` are `recordedAfter` and `recordedBefore` here.
 */
@ArgsType()
export class AuditEntriesArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;

  @Field(() => Int, { nullable: true, description: 'Only what this user did' })
  @Max(MAX_INT32, ID_MESSAGE('actorId'))
  @Min(1, ID_MESSAGE('actorId'))
  @IsInt(ID_MESSAGE('actorId'))
  @IsOptional()
  actorId?: number | null;

  @Field(() => String, { nullable: true, description: 'Only this action (an action of the audit table, e.g. posts.update); BAD_USER_INPUT for another' })
  @MaxLength(64, { message: 'action is not an audit action' })
  @IsString()
  @IsOptional()
  action?: string | null;

  @Field(() => String, { nullable: true, description: 'Only entries on resources of this type (post, comment, tag, user, apiKey, webhook, media)' })
  @MaxLength(32, { message: 'resourceType is not a resource type of the audit log' })
  @IsString()
  @IsOptional()
  resourceType?: string | null;

  @Field(() => Int, { nullable: true, description: 'Only entries on this resource (with resourceType)' })
  @Max(MAX_INT32, ID_MESSAGE('resourceId'))
  @Min(1, ID_MESSAGE('resourceId'))
  @IsInt(ID_MESSAGE('resourceId'))
  @IsOptional()
  resourceId?: number | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Entries recorded after this time (exclusive)' })
  @IsDateTime(DATE_MESSAGE('recordedAfter'))
  @IsOptional()
  recordedAfter?: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Entries recorded before this time (exclusive)' })
  @IsDateTime(DATE_MESSAGE('recordedBefore'))
  @IsOptional()
  recordedBefore?: Date | null;
}

/** The filter of the arguments. */
export function auditFilterOfArgs(args: AuditEntriesArgs): AuditFilter {
  const given = <T>(value: T | null | undefined): T | undefined => value ?? undefined;
  return {
    actorId: given(args.actorId),
    action: given(args.action),
    resourceType: given(args.resourceType),
    resourceId: given(args.resourceId),
    after: given(args.recordedAfter),
    before: given(args.recordedBefore),
  };
}
