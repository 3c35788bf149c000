import { Field, Float, InputType } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsNumber, IsObject, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { ApiAtLeastOneMember } from '../../common/openapi/api-docs.decorators.js';
import { MaxChars } from '../../common/validation/transforms.js';

const FRACTION = { message: 'focalPoint.x and focalPoint.y must be numbers from 0 to 1' };

/** A focal point as written: x and y from 0 to 1. */
@InputType('FocalPointInput', { description: 'Where the subject of an image is: x and y from 0 (left, top) to 1 (right, bottom)' })
export class FocalPointDto {
  @Field(() => Float, { description: 'From 0 (left edge) to 1 (right edge)' })
  @ApiProperty({ type: 'number', minimum: 0, maximum: 1 })
  @Max(1, FRACTION)
  @Min(0, FRACTION)
  @IsNumber({ allowNaN: false, allowInfinity: false }, FRACTION)
  @IsDefined(FRACTION)
  x: number;

  @Field(() => Float, { description: 'From 0 (top edge) to 1 (bottom edge)' })
  @ApiProperty({ type: 'number', minimum: 0, maximum: 1 })
  @Max(1, FRACTION)
  @Min(0, FRACTION)
  @IsNumber({ allowNaN: false, allowInfinity: false }, FRACTION)
  @IsDefined(FRACTION)
  y: number;
}

/** The body of PATCH /media/{id} and GraphQL's UpdateMediaInput: any of alt, caption and focalPoint (null clears one). */
@InputType('UpdateMediaInput', { description: 'Changes to a media item: only the fields given change (null clears one)' })
@ApiAtLeastOneMember()
export class UpdateMediaDto {
  @Field(() => String, { nullable: true, description: 'The text that stands for the image (at most 500 characters)' })
  @ApiPropertyOptional({ type: 'string', maxLength: 500, nullable: true })
  @MaxChars(500, { message: 'alt must be at most 500 characters' })
  @IsString({ message: 'alt must be a string' })
  @IsOptional()
  alt?: string | null;

  @Field(() => String, { nullable: true, description: 'A caption (at most 1000 characters)' })
  @ApiPropertyOptional({ type: 'string', maxLength: 1000, nullable: true })
  @MaxChars(1000, { message: 'caption must be at most 1000 characters' })
  @IsString({ message: 'caption must be a string' })
  @IsOptional()
  caption?: string | null;

  @Field(() => FocalPointDto, { nullable: true, description: 'Where its subject is; null: not said' })
  @ApiPropertyOptional({ type: FocalPointDto, nullable: true })
  @ValidateNested()
  @Type(() => FocalPointDto)
  @IsObject({ message: 'focalPoint must be an object {x, y} or null' })
  @IsOptional()
  focalPoint?: FocalPointDto | null;
}
