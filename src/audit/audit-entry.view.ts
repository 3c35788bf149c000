import type { DocumentedResource } from '../common/openapi/api-docs.decorators.js';
import type { SchemaObject } from '../common/openapi/schemas.js';
import { TIME_CURSOR_PATTERN } from '../common/pagination/cursor.js';
import { isoText } from '../common/resource/iso-text.js';
import type { ListItem, ResourceOrigin } from '../common/resource/resource.js';
import { AUDIT_ACTION_NAMES, AUDIT_RESOURCE_TYPES } from './audit-actions.js';
import { AUDIT_CREDENTIALS, type AuditCredential, type AuditEntry } from './audit-entry.entity.js';
import type { AuditChanges } from './audit-log.service.js';

/** The path of one entry: GET /audit/{id}. */
export const auditPath = (id: number) => `/audit/${id}`;

/** Who acted: a user (with the API key they acted with), the system, or nobody (a failed sign-in). */
export interface AuditEntryActor {
  userId: number | null;
  credential: AuditCredential | null;
  /** Only when an API key was used. */
  keyId?: number;
}

/** An entry as REST and GraphQL show it (CONTRACT §16): the row's columns grouped, `changes` parsed. */
export interface AuditEntryRecord {
  id: number;
  at: Date;
  actor: AuditEntryActor;
  action: string;
  resource: { type: string; id: number | null };
  changes: AuditChanges;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  traceId: string | null;
}

export function auditRecord(entry: AuditEntry): AuditEntryRecord {
  const actor: AuditEntryActor = { userId: entry.actorId, credential: entry.actorCredential };
  if (entry.actorKeyId !== null) actor.keyId = entry.actorKeyId;
  return {
    id: entry.id,
    at: entry.at,
    actor,
    action: entry.action,
    resource: { type: entry.resourceType, id: entry.resourceId },
    changes: JSON.parse(entry.changes) as AuditChanges,
    ip: entry.ip,
    userAgent: entry.userAgent,
    requestId: entry.requestId,
    traceId: entry.traceId,
  };
}

/** The representation of an entry (every format): its record, `at` in ISO 8601, and `_links.self`. */
export function auditItem(entry: AuditEntry): ListItem {
  const { at, ...record } = auditRecord(entry);
  const { id, ...rest } = record;
  return { id, at: isoText(at), ...rest, _links: { self: { href: auditPath(entry.id) } } };
}

const nullable = (schema: SchemaObject): SchemaObject => ({ ...schema, nullable: true });
const LINK: SchemaObject = { type: 'object', properties: { href: { type: 'string' } }, required: ['href'], additionalProperties: false };
/** A value before or after a change: whatever the field holds (a text, a number, a list of tags, null…). */
const VALUE: SchemaObject = { description: "The field's value (any JSON value, null included); `[redacted]` for a secret field" };

const AUDIT_ENTRY_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    at: { type: 'string', format: 'date-time', description: 'When the change was committed' },
    actor: {
      type: 'object',
      properties: {
        userId: nullable({ type: 'integer', description: 'The user who acted; null for the system and for a failed sign-in' }),
        credential: nullable({ type: 'string', enum: [...AUDIT_CREDENTIALS], description: 'How the actor proved who they were; null for a failed sign-in' }),
        keyId: { type: 'integer', description: 'The API key they acted with; only with `api-key`' },
      },
      required: ['userId', 'credential'],
      additionalProperties: false,
    },
    action: { type: 'string', enum: [...AUDIT_ACTION_NAMES], description: 'What was done (docs/audit.md lists the actions)' },
    resource: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: [...AUDIT_RESOURCE_TYPES] },
        id: nullable({ type: 'integer', description: 'Null where the resource has no id (a failed sign-in for an unknown e-mail)' }),
      },
      required: ['type', 'id'],
      additionalProperties: false,
    },
    changes: {
      type: 'object',
      description: 'The fields that changed, each `{from, to}`; secret fields are named, their values `[redacted]`',
      additionalProperties: { type: 'object', properties: { from: VALUE, to: VALUE }, required: ['from', 'to'], additionalProperties: false },
    },
    ip: nullable({ type: 'string', description: 'The client address (per TRUST_PROXY); null for the system' }),
    userAgent: nullable({ type: 'string', maxLength: 512 }),
    requestId: nullable({ type: 'string', description: 'The X-Request-Id of the request (or GraphQL operation) that made the change' }),
    traceId: nullable({ type: 'string', pattern: '^[0-9a-f]{32}$', description: 'The trace of the change, when tracing is on' }),
    _links: { type: 'object', properties: { self: LINK }, required: ['self'], additionalProperties: false },
  },
  required: ['id', 'at', 'actor', 'action', 'resource', 'changes', 'ip', 'userAgent', 'requestId', 'traceId', '_links'],
  additionalProperties: false,
};

/**
 * The audit log as a resource (CONTRACT §16): GET /audit and /audit/{id} in every format, its
 * schema for the OpenAPI document. Not a ResourceDefinition: an entry's representation groups its
 * columns (`actor`, `resource`) and parses `changes`, where a definition shows each column as a field.
 */
export const AUDIT_LIST: ResourceOrigin & DocumentedResource = {
  kind: 'auditEntry',
  plural: 'auditEntries',
  cursorPattern: TIME_CURSOR_PATTERN,
  schema: AUDIT_ENTRY_SCHEMA,
};
