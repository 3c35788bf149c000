import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which instance wrote an event (`origin`, its id for as long as it runs): a relay empties its
 * response cache before publishing another instance's event, but not its own instance's, which
 * the writer emptied already before answering. Null for events written before this column
 * existed (read as another instance's).
 */
export class EventsOrigin1764800000000 implements MigrationInterface {
  name = 'EventsOrigin1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "origin" varchar(36)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "origin"');
  }
}
