import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** `GET /media/{id}/file?variant=`. */
export class MediaFileQuery {
  @ApiPropertyOptional({ type: 'string', pattern: '^w[0-9]+$', example: 'w320', description: 'One of the variants the item lists (`w{width}`); omitted: the original. Any other name is 400' })
  @MaxLength(16, { message: 'variant must be the name of a variant (w{width})' })
  @IsString({ message: 'variant must be the name of a variant (w{width})' })
  @IsOptional()
  variant?: string;
}
