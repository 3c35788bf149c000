import { Readable } from 'node:stream';
import { Controller, Get, Headers, Ip, Param, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import type { Actor } from '../common/actor.js';
import { ApiProblems } from '../common/openapi/api-docs.decorators.js';
import { schemaRef } from '../common/openapi/schemas.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { personalDataSchema } from './personal-data.schema.js';
import { CURRENT_PASSWORD_HEADER, PersonalDataService } from './personal-data.service.js';

/** The export's route as Fastify names it: a GET that records its own audit entry (users.export). */
export const EXPORT_ROUTE = '/users/:id/export';

@ApiTags('users')
@Controller('users')
export class PersonalDataController {
  constructor(private readonly personalData: PersonalDataService) {}

  @Get(':id/export')
  @SignedIn()
  @ApiOperation({
    summary: "A user's personal data, as one JSON document (the user, or an admin; never with an API key)",
    description:
      'Streamed as it is read: the profile, every post in every state with its revisions, the comments they wrote, the metadata of the media they uploaded, ' +
      'their API keys (no keys), their single sign-on identities and their audit entries. The user needs a bearer token less than 5 minutes old, ' +
      `or their current password in \`${CURRENT_PASSWORD_HEADER}\`: 400 BAD_USER_INPUT naming the header without either, 403 FORBIDDEN when it is wrong, ` +
      '429 RATE_LIMITED once wrong passwords reach the sign-in limits. Admins need neither. Another user is 403 FORBIDDEN, an API key 403 INSUFFICIENT_SCOPE.',
  })
  @ApiHeader({ name: CURRENT_PASSWORD_HEADER, required: false, description: 'Your current password, unless your token is less than 5 minutes old (admins: not needed)' })
  @ApiResponse({
    status: 200,
    description: 'The document, as an attachment; never cached',
    headers: {
      'Content-Disposition': { description: 'attachment; filename="user-{id}-export.json"', schema: { type: 'string' } },
      'Cache-Control': { description: 'no-store', schema: { type: 'string', enum: ['no-store'] } },
    },
    content: { 'application/json': { schema: schemaRef('PersonalData', personalDataSchema()) } },
  })
  @ApiProblems(403, 404)
  async export(
    @Param('id', ParseIdPipe) id: number,
    @CurrentActor() actor: Actor | null,
    @Headers(CURRENT_PASSWORD_HEADER.toLowerCase()) currentPassword: string | undefined,
    @Ip() clientAddress: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const document = await this.personalData.export(id, actor, currentPassword, clientAddress);
    reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').header('content-disposition', `attachment; filename="user-${id}-export.json"`);
    // A HEAD is answered without reading the document (Fastify would read a stream through to discard it).
    await reply.send(request.method === 'HEAD' ? undefined : Readable.from(document));
  }
}
