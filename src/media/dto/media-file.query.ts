import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** `GET /media/{id}/file?variant=`. */
export class MediaFileQuery {
  @ApiPropertyOptional({
    type: 'string',
    // The names of the default MEDIA_VARIANT_WIDTHS; a service configured otherwise takes its own.
    enum: ['w320', 'w768', 'w1280', 'w1920'],
    description: 'One of the variants the item lists: `w{width}` for each width of MEDIA_VARIANT_WIDTHS (by default these); omitted: the original. Any other name is 400',
  })
  @MaxLength(16, { message: 'variant must be the name of a variant (w{width})' })
  @IsString({ message: 'variant must be the name of a variant (w{width})' })
  @IsOptional()
  variant?: string;
}
