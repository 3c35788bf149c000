import { Args, Context, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { ListSize } from '../common/graphql/cost.decorator.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { toPageRequest } from '../common/graphql/page.args.js';
import { connectionOf } from '../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE, encodeTimeCursor } from '../common/pagination/cursor.js';
import { AuditEntries } from './audit-entries.service.js';
import { auditRecord } from './audit-entry.view.js';
import { AuditEntriesArgs, AuditEntryConnection, auditFilterOfArgs } from './models/audit-entry.model.js';

/** auditEntries (CONTRACT §16): thin over AuditEntries, as GET /audit (admins; FORBIDDEN otherwise). No mutation touches the log. */
@Resolver(() => AuditEntryConnection)
export class AuditResolver {
  constructor(private readonly audit: AuditEntries) {}

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE, sizedFields: ['edges', 'nodes'] })
  @Query(() => AuditEntryConnection, { description: 'Admins: the audit log, newest first, filtered as GET /audit (FORBIDDEN for others)' })
  async auditEntries(@Args() args: AuditEntriesArgs, @Context() context: GraphQLContext): Promise<AuditEntryConnection> {
    const filter = auditFilterOfArgs(args);
    const page = await this.audit.list(filter, toPageRequest(args), context.actor);
    const records = page.items.map(auditRecord);
    return { ...connectionOf({ ...page, items: records, cursorOf: (record) => encodeTimeCursor(record.at, record.id) }), filter };
  }

  @ResolveField('totalCount', () => Int, { description: 'All the entries the filters keep (a COUNT, run only when asked for)' })
  totalCount(@Parent() connection: AuditEntryConnection, @Context() context: GraphQLContext): Promise<number> {
    return this.audit.count(connection.filter, context.actor);
  }
}
