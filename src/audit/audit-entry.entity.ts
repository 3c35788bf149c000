import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** How the actor of an entry proved who they were; null for a failed sign-in (nobody). */
export const AUDIT_CREDENTIALS = ['token', 'api-key', 'sso', 'system'] as const;
export type AuditCredential = (typeof AUDIT_CREDENTIALS)[number];

/**
 * One entry of the audit log (CONTRACT §16): who did what to which resource, from where. Written
 * in the transaction of the change it records (AuditLog.record) and never changed afterwards,
 * but for the erasure of a deleted user's name and e-mail from `changes`; pruned after
 * AUDIT_RETENTION_DAYS.
 */
@Entity({ name: 'audit_entries' })
export class AuditEntry {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'at' })
  at: Date;

  /** The user who acted; null for the system and for a failed sign-in. Kept when that user is deleted (no foreign key). */
  @Column({ name: 'actor_id', type: 'integer', nullable: true })
  actorId: number | null;

  @Column({ name: 'actor_credential', type: 'varchar', length: 16, nullable: true })
  actorCredential: AuditCredential | null;

  /** The API key acted with, when one was. */
  @Column({ name: 'actor_key_id', type: 'integer', nullable: true })
  actorKeyId: number | null;

  /** One of AUDIT_ACTIONS (src/audit/audit-actions.ts): `posts.update`, `auth.signIn`, … */
  @Column({ type: 'varchar', length: 64 })
  action: string;

  /** The resource's type, singular: `post`, `user`, `apiKey`, … */
  @Column({ name: 'resource_type', type: 'varchar', length: 32 })
  resourceType: string;

  /** Null where the resource has no id yet (a failed sign-in for an unknown e-mail). */
  @Column({ name: 'resource_id', type: 'integer', nullable: true })
  resourceId: number | null;

  /** `{field: {from, to}}` as JSON text; a secret field's values are `"[redacted]"`. */
  @Column({ type: 'text' })
  changes: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  @Column({ name: 'trace_id', type: 'varchar', length: 32, nullable: true })
  traceId: string | null;
}
