import { Body, Controller, Delete, Get, Ip, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiCreate, ApiDelete, ApiGetList, ApiGetOne, ApiUpdate } from '../common/openapi/api-docs.decorators.js';
import { PageQueryDto, toPageRequest } from '../common/pagination/cursor.js';
import { IfMatch } from '../common/resource/etag.js';
import { NegotiatedRepresentations } from '../common/resource/negotiated.js';
import { nextPageHref, type Resource, type ResourceList } from '../common/resource/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { CreateUserDto } from './dto/create-user.dto.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import { USER_RESOURCE } from './user.resource.js';
import { UsersService } from './users.service.js';

@ApiTags('users')
@NegotiatedRepresentations()
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: 'Users, oldest first' })
  @ApiGetList(USER_RESOURCE)
  async list(@Query() query: PageQueryDto, @CurrentActor() actor: Actor | null): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.users.list(request);
    const next = nextPageHref('/users', page.nextCursor, { limit: request.limit });
    return USER_RESOURCE.list(page.items, next, (user) => this.users.revealsCommentsBlocked(actor, user));
  }

  @Post()
  @ApiOperation({ summary: 'Sign up' })
  @ApiCreate(USER_RESOURCE, 409)
  async create(@Body() input: CreateUserDto, @Ip() clientAddress: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<Resource> {
    const user = await this.users.signUp(input, clientAddress);
    reply.header('location', USER_RESOURCE.path(user.id));
    return USER_RESOURCE.one(user);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One user' })
  @ApiGetOne(USER_RESOURCE)
  async get(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor | null): Promise<Resource> {
    const user = await this.users.get(id);
    return USER_RESOURCE.one(user, this.users.revealsCommentsBlocked(actor, user));
  }

  @Patch(':id')
  @SignedIn()
  @ApiOperation({ summary: 'Change a user (themselves or an admin; role: admins only; commentsBlocked: moderators, editors and admins)' })
  @ApiUpdate(USER_RESOURCE, 409)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() input: UpdateUserDto,
    @CurrentActor() actor: Actor,
    @IfMatch() expectedVersion: number | undefined,
    @Ip() clientAddress: string,
  ): Promise<Resource> {
    const user = await this.users.update(id, input, actor, { expectedVersion, clientAddress });
    return USER_RESOURCE.one(user, this.users.revealsCommentsBlocked(actor, user));
  }

  @Delete(':id')
  @SignedIn()
  @ApiOperation({ summary: 'Delete a user with their posts and comments' })
  @ApiDelete('Deleted', 409)
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.users.delete(id, actor);
  }

  @Delete(':id/tokens')
  @SignedIn()
  @ApiOperation({ summary: 'Sign out everywhere: every token issued to the user so far is refused (the user or an admin)' })
  @ApiDelete('Revoked')
  async revokeTokens(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.users.revokeTokens(id, actor);
  }
}
