import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * A TypeORM logger that counts statements: TypeORM calls logQuery for every statement it sends
 * (transaction control included), whatever the `logging` option says. Nothing is printed.
 */
export class QueryCountingLogger implements TypeOrmLogger {
  constructor(private readonly onQuery: () => void) {}

  logQuery(): void {
    this.onQuery();
  }

  logQueryError(): void {}

  logQuerySlow(): void {}

  logSchemaBuild(): void {}

  logMigration(): void {}

  log(): void {}
}
