import { Field, InputType } from '@nestjs/graphql';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { NormalizeEmail, REQUIRED } from '../../common/validation/transforms.js';

/** The body of POST /tokens and GraphQL's CreateTokenInput. */
@InputType('CreateTokenInput', { description: 'Credentials to sign in with' })
export class CreateTokenDto {
  @Field(() => String, { description: 'The e-mail of the account (any case)' })
  @ApiProperty({ format: 'email', example: 'alice@example.com' })
  @MaxLength(320)
  @IsString()
  @IsDefined(REQUIRED)
  @NormalizeEmail()
  email: string;

  @Field(() => String, { description: 'Its password' })
  @ApiProperty({ format: 'password', example: 'alice-password' })
  @MaxLength(128)
  @IsString()
  @IsDefined(REQUIRED)
  password: string;
}
