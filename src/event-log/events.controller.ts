import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiGetList } from '../common/openapi/api-docs.decorators.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/cursor.js';
import { NegotiatedRepresentations, Uncached } from '../common/resource/negotiated.js';
import { ResourceList } from '../common/resource/resource.js';
import { ListEventsQuery } from './dto/list-events.query.js';
import { EVENT_LIST, eventItem } from './event-list.js';
import { EventLogService } from './event-log.service.js';

@ApiTags('events')
@NegotiatedRepresentations()
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventLogService) {}

  @Get()
  // Pruning changes what a page shows (or whether its cursor is still good) without a write.
  @Uncached()
  @ApiOperation({
    summary: 'The event log, oldest first: every write, with the resource as it left it',
    description: 'Keyset-paged by `after`; a cursor from before what retention pruned answers 410 CURSOR_EXPIRED.',
  })
  @ApiGetList(EVENT_LIST, 410)
  async list(@Query() query: ListEventsQuery): Promise<ResourceList> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const types = this.events.parseTypes(query.types);
    const page = await this.events.page(query.after, limit, { types });
    const params = new URLSearchParams({ limit: String(limit) });
    if (query.types !== undefined) params.set('types', types!.join(','));
    const next = page.next === null ? null : `/events?${params.toString()}&after=${page.next}`;
    return new ResourceList(EVENT_LIST, page.events.map(eventItem), next);
  }
}
