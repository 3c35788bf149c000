import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (CONTRACT §16): one row per change and per security event, written in the
 * change's transaction. No foreign key to users: an entry outlives its actor and its resource.
 * Each filter of GET /audit is served by an index that also gives the order (newest first,
 * keyset on at and id): by time alone (and the retention's pruning), by actor, by action, by
 * resource.
 */
export class AuditLog1766100000000 implements MigrationInterface {
  name = 'AuditLog1766100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'BIGSERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE "audit_entries" (
      "id" ${id},
      "at" ${time} NOT NULL,
      "actor_id" integer,
      "actor_credential" varchar(16) CHECK ("actor_credential" IN ('token', 'api-key', 'sso', 'system')),
      "actor_key_id" integer,
      "action" varchar(64) NOT NULL,
      "resource_type" varchar(32) NOT NULL,
      "resource_id" integer,
      "changes" text NOT NULL,
      "ip" varchar(64),
      "user_agent" varchar(512),
      "request_id" varchar(128),
      "trace_id" varchar(32)
    )`);
    await queryRunner.query('CREATE INDEX "idx_audit_entries_at" ON "audit_entries" ("at", "id")');
    await queryRunner.query('CREATE INDEX "idx_audit_entries_actor" ON "audit_entries" ("actor_id", "at", "id")');
    await queryRunner.query('CREATE INDEX "idx_audit_entries_action" ON "audit_entries" ("action", "at", "id")');
    await queryRunner.query('CREATE INDEX "idx_audit_entries_resource" ON "audit_entries" ("resource_type", "resource_id", "at", "id")');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "audit_entries"');
  }
}
