import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tokens issued before `tokens_valid_after` (a password change, a revocation) are refused. */
export class CredentialStamps1764100000000 implements MigrationInterface {
  name = 'CredentialStamps1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const time = queryRunner.connection.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`ALTER TABLE "users" ADD COLUMN "tokens_valid_after" ${time}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "users" DROP COLUMN "tokens_valid_after"');
  }
}
