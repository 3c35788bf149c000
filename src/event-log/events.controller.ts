import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentActor } from '../auth/auth.decorators.js';
import type { Actor } from '../common/actor.js';
import { ApiGetList, ApiGetOne } from '../common/openapi/api-docs.decorators.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/cursor.js';
import { NegotiatedRepresentations, Uncached } from '../common/resource/negotiated.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { Resource, ResourceList } from '../common/resource/resource.js';
import { encodeEventCursor, EVENT_CURSOR_PATTERN } from '../events/event-cursor.js';
import { ListEventsQuery } from './dto/list-events.query.js';
import { EVENT_LIST, eventItem } from './event-list.js';
import { EventLogService } from './event-log.service.js';

@ApiTags('events')
@NegotiatedRepresentations()
@Controller('events')
export class EventsController {
  constructor(
    private readonly events: EventLogService,
    private readonly catalog: ResourceCatalog,
  ) {}

  @Get()
  // Pruning changes what a page shows (or whether its cursor is still good) without a write.
  @Uncached()
  @ApiOperation({
    summary: 'The event log, oldest first: every write, with the resource as it left it',
    description: 'Keyset-paged by `after`; a cursor from before what retention pruned answers 410 CURSOR_EXPIRED.',
  })
  @ApiGetList(EVENT_LIST, 410)
  async list(@Query() query: ListEventsQuery, @CurrentActor() actor: Actor | null): Promise<ResourceList> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const types = this.events.parseTypes(query.types);
    const page = await this.events.page(query.after, limit, { types }, actor);
    const params = new URLSearchParams({ limit: String(limit) });
    if (query.types !== undefined) params.set('types', types!.join(','));
    const next = page.next === null ? null : `/events?${params.toString()}&after=${page.next}`;
    return new ResourceList(EVENT_LIST, page.events.map((event) => eventItem(this.catalog, event)), next);
  }

  @Get(':cursor')
  // Pruning turns it into a 410 without a write.
  @Uncached()
  @ApiOperation({
    summary: 'One event of the log, as the list shows it',
    description: 'The `self` of each event in a HAL list. 404 for a cursor of no event, 410 CURSOR_EXPIRED for one retention pruned, 400 for a malformed one.',
  })
  @ApiParam({ name: 'cursor', description: 'The cursor of the event', schema: { type: 'string', pattern: EVENT_CURSOR_PATTERN }, example: encodeEventCursor({ tx: 0, id: 1 }) })
  @ApiGetOne(EVENT_LIST, 410)
  async get(@Param('cursor') cursor: string, @CurrentActor() actor: Actor | null): Promise<Resource> {
    // Events have no version: their ETag is a digest of what is sent.
    return new Resource(EVENT_LIST, eventItem(this.catalog, await this.events.event(cursor, actor)), null);
  }
}
