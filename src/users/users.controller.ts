import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { PageQueryDto, toPageRequest } from '../common/pagination/cursor.js';
import { userPath } from '../common/representation/links.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { CreateUserDto } from './dto/create-user.dto.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import { toUserView, type UserView } from './user.view.js';
import { UsersService } from './users.service.js';

@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  async list(@Query() query: PageQueryDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<UserView[]> {
    const request = toPageRequest(query);
    const page = await this.users.list(request);
    if (page.nextCursor) {
      reply.header('link', `</users?limit=${request.limit}&cursor=${page.nextCursor}>; rel="next"`);
    }
    return page.items.map(toUserView);
  }

  @Post()
  async create(@Body() input: CreateUserDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<UserView> {
    const user = await this.users.create(input);
    reply.header('location', userPath(user.id));
    return toUserView(user);
  }

  @Get(':id')
  async get(@Param('id', ParseIdPipe) id: number): Promise<UserView> {
    return toUserView(await this.users.get(id));
  }

  @Patch(':id')
  @SignedIn()
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() input: UpdateUserDto,
    @CurrentActor() actor: Actor,
  ): Promise<UserView> {
    return toUserView(await this.users.update(id, input, actor));
  }

  @Delete(':id')
  @SignedIn()
  @HttpCode(204)
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.users.delete(id, actor);
  }
}
