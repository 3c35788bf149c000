import { Readable } from 'node:stream';
import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import type { Actor } from '../common/actor.js';
import { ApiGetListWithStream, ApiGetOne } from '../common/openapi/api-docs.decorators.js';
import { DEFAULT_PAGE_SIZE, decodeListCursor } from '../common/pagination/cursor.js';
import { NegotiatedRepresentations, StreamsNdjson, Uncached } from '../common/resource/negotiated.js';
import { nextPageHref, Resource, ResourceList } from '../common/resource/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { AuditEntries } from './audit-entries.service.js';
import { AUDIT_LIST, auditItem } from './audit-entry.view.js';
import { auditFilterOf, ListAuditQuery } from './dto/list-audit.query.js';

/**
 * The audit log (CONTRACT §16), admins only: read in every format, exported as NDJSON. There is
 * no route that changes or deletes an entry (PUT, PATCH, DELETE are 405).
 */
@ApiTags('audit')
@NegotiatedRepresentations()
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditEntries) {}

  @Get()
  @SignedIn()
  // Never from the response cache: every change adds an entry.
  @Uncached()
  @StreamsNdjson()
  @ApiOperation({
    summary: 'The audit log, newest first (admins); as application/x-ndjson, the whole filtered log streamed for export',
    description:
      'Filters: actorId, action, resourceType, resourceId (with resourceType), after and before (ISO 8601 times, exclusive); 400 naming the field when one is malformed. ' +
      'With `Accept: application/x-ndjson` every entry the filters keep is written, one JSON entry a line, newest first, read and sent in batches (limit and cursor do not apply).',
  })
  @ApiGetListWithStream(AUDIT_LIST, 403)
  async list(
    @Query() query: ListAuditQuery,
    @CurrentActor() actor: Actor | null,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResourceList | Readable | string> {
    const filter = auditFilterOf(query);
    // Checked whichever the format (a malformed one is 400), though an export reads from the newest.
    const cursor = query.cursor === undefined ? {} : decodeListCursor(query.cursor);
    if (request.representation?.format === 'ndjson') {
      const lines = this.audit.export(filter, actor, auditItem);
      reply.header('content-type', request.representation.contentType);
      // A HEAD is answered without reading the log (Fastify would read a stream through to discard it).
      return request.method === 'HEAD' ? '' : Readable.from(lines, { objectMode: false });
    }
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await this.audit.list(filter, { limit, ...cursor }, actor);
    const params = {
      limit,
      actorId: query.actorId,
      action: query.action,
      resourceType: query.resourceType,
      resourceId: query.resourceId,
      after: query.after?.toISOString(),
      before: query.before?.toISOString(),
    };
    return new ResourceList(AUDIT_LIST, page.items.map(auditItem), nextPageHref('/audit', page.nextCursor, params));
  }

  @Get(':id')
  @SignedIn()
  @ApiOperation({ summary: 'One entry of the audit log, as the list shows it (admins)' })
  @ApiGetOne(AUDIT_LIST, 403)
  async get(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor | null): Promise<Resource> {
    // Entries never change (but for an erasure): their ETag is a digest of what is sent.
    return new Resource(AUDIT_LIST, auditItem(await this.audit.get(id, actor)), null);
  }
}
