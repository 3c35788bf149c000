import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiGetList, ApiGetOne, ApiIfMatch, ApiWrite } from '../common/openapi/api-docs.decorators.js';
import { USER_SCHEMA } from '../common/openapi/schemas.js';
import { PageQueryDto, toPageRequest } from '../common/pagination/cursor.js';
import { IfMatch } from '../common/representation/etag.js';
import { userPath } from '../common/representation/links.js';
import { NegotiatedRepresentations } from '../common/representation/representation.hooks.js';
import { nextPageHref, Resource, ResourceList } from '../common/representation/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { CreateUserDto } from './dto/create-user.dto.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import type { User } from './user.entity.js';
import { toUserView } from './user.view.js';
import { UsersService } from './users.service.js';

const toResource = (user: User) => new Resource('user', toUserView(user), user.version);

@ApiTags('users')
@NegotiatedRepresentations()
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: 'Users, oldest first' })
  @ApiGetList(USER_SCHEMA)
  async list(@Query() query: PageQueryDto): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.users.list(request);
    const next = nextPageHref('/users', page.nextCursor, { limit: request.limit });
    return new ResourceList('user', page.items.map(toUserView), next);
  }

  @Post()
  @ApiOperation({ summary: 'Sign up' })
  @ApiWrite(201, 'The user; Location names it', USER_SCHEMA, 409)
  async create(@Body() input: CreateUserDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<Resource> {
    const user = await this.users.create(input);
    reply.header('location', userPath(user.id));
    return toResource(user);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One user' })
  @ApiGetOne(USER_SCHEMA)
  async get(@Param('id', ParseIdPipe) id: number): Promise<Resource> {
    return toResource(await this.users.get(id));
  }

  @Patch(':id')
  @SignedIn()
  @ApiOperation({ summary: 'Change a user (themselves or an admin; role: admins only)' })
  @ApiIfMatch()
  @ApiWrite(200, 'The changed user', USER_SCHEMA, 412)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() input: UpdateUserDto,
    @CurrentActor() actor: Actor,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Resource> {
    return toResource(await this.users.update(id, input, actor, { expectedVersion }));
  }

  @Delete(':id')
  @SignedIn()
  @ApiOperation({ summary: 'Delete a user with their posts and comments' })
  @ApiWrite(204, 'Deleted')
  @HttpCode(204)
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.users.delete(id, actor);
  }
}
