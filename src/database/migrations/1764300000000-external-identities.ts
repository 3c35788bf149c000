import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Single sign-on: which local user an OpenID Connect subject (issuer + `sub`) is. One row per
 * subject (the unique pair is what stops two concurrent first tokens from creating two users).
 * `roles_issued_at` is the `iat` of the newest token whose roles claim set the user's role.
 * When the user is deleted the row stays with no user (`user_id` NULL): tokens issued before
 * `orphaned_at` (when that was first seen) stay refused; a later one creates a new user.
 */
export class ExternalIdentities1764300000000 implements MigrationInterface {
  name = 'ExternalIdentities1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE "external_identities" (
      "id" ${id},
      "issuer" varchar(2048) NOT NULL,
      "subject" varchar(255) NOT NULL,
      "user_id" integer,
      "roles_issued_at" bigint NOT NULL,
      "orphaned_at" bigint,
      "created_at" ${time} NOT NULL,
      CONSTRAINT "UQ_external_identities_subject" UNIQUE ("issuer", "subject"),
      CONSTRAINT "UQ_external_identities_user" UNIQUE ("user_id"),
      CONSTRAINT "FK_external_identities_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE SET NULL
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "external_identities"`);
  }
}
