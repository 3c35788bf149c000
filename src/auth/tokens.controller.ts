import { Body, Controller, Post } from '@nestjs/common';
import { AuthService, type IssuedToken } from './auth.service.js';
import { CreateTokenDto } from './dto/create-token.dto.js';

@Controller('tokens')
export class TokensController {
  constructor(private readonly auth: AuthService) {}

  @Post()
  create(@Body() input: CreateTokenDto): Promise<IssuedToken> {
    return this.auth.issueToken(input.email, input.password);
  }
}
