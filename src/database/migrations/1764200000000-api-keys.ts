import type { MigrationInterface, QueryRunner } from 'typeorm';

/** API keys: a user's keys for integrations, stored as keyed hashes; deleted with their user. */
export class ApiKeys1764200000000 implements MigrationInterface {
  name = 'ApiKeys1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE "api_keys" (
      "id" ${id},
      "user_id" integer NOT NULL,
      "name" varchar(100) NOT NULL,
      "key_hash" varchar(64) NOT NULL,
      "scopes" varchar(20) NOT NULL,
      "expires_at" ${time},
      "last_used_at" ${time},
      "created_at" ${time} NOT NULL,
      "updated_at" ${time} NOT NULL,
      "version" integer NOT NULL,
      CONSTRAINT "UQ_api_keys_key_hash" UNIQUE ("key_hash"),
      CONSTRAINT "FK_api_keys_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query('CREATE INDEX "idx_api_keys_user_id" ON "api_keys" ("user_id")');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "api_keys"');
  }
}
