import { Field, Float, Int, ObjectType } from '@nestjs/graphql';

/** Where the subject of an image is, as fractions of its width and height (0-1 from the top left): what a crop keeps. */
@ObjectType('FocalPoint', { description: 'Where the subject of an image is: x and y from 0 (left, top) to 1 (right, bottom)' })
export class FocalPoint {
  @Field(() => Float, { description: 'From 0 (left edge) to 1 (right edge)' })
  x: number;

  @Field(() => Float, { description: 'From 0 (top edge) to 1 (bottom edge)' })
  y: number;
}

/** One variant of a media item that exists: a WebP of one MEDIA_VARIANT_WIDTHS width. */
@ObjectType('MediaVariant', { description: 'A smaller copy of an image, made once in the background (WebP)' })
export class MediaVariant {
  @Field(() => String, { description: 'Its name (`w320`): GET /media/{id}/file?variant={name}' })
  name: string;

  @Field(() => Int, { description: 'Its width in pixels' })
  width: number;

  @Field(() => Int, { description: 'Its height in pixels' })
  height: number;

  @Field(() => String, { description: 'Its type (image/webp)' })
  mimeType: string;

  @Field(() => Int, { description: 'Its size in bytes' })
  size: number;

  @Field(() => String, { description: 'Where its bytes are served' })
  href: string;
}
