import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { User } from '../users/user.entity.js';
import { FocalPoint, MediaVariant } from './models/media-parts.model.js';
import { ListSize } from '../common/graphql/cost.decorator.js';

/** How many variants an item has with the default MEDIA_VARIANT_WIDTHS (320, 768, 1280, 1920): what the cost estimator assumes. */
const DEFAULT_VARIANT_COUNT = 4;

/** Also the GraphQL `Media` type (never the version). Its bytes live in MediaStorage under `media/{id}/…`. */

@ObjectType('Media', { description: 'An uploaded image: its facts, its variants and where its file is' })
@Entity({ name: 'media' })
@Index('idx_media_uploader_id_id', ['uploaderId', 'id'])
export class Media {
  @Field(() => Int, { description: "The media item's id" })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String, { description: 'The file name it was uploaded with (for display only: never a path)' })
  @Column({ type: 'varchar', length: 255 })
  filename: string;

  @Field(() => String, { description: 'Its type, as read from its bytes: image/jpeg, image/png, image/gif, image/webp or image/avif' })
  @Column({ name: 'mime_type', type: 'varchar', length: 32 })
  mimeType: string;

  @Field(() => Int, { description: 'The size of the stored original in bytes (metadata stripped)' })
  @Column({ type: 'integer' })
  size: number;

  @Field(() => Int, { description: 'Its width in pixels (as displayed: EXIF orientation applied)' })
  @Column({ type: 'integer' })
  width: number;

  @Field(() => Int, { description: 'Its height in pixels' })
  @Column({ type: 'integer' })
  height: number;

  @Field(() => String, { nullable: true, description: 'The text that stands for it where it cannot be seen (at most 500 characters)' })
  @Column({ type: 'varchar', length: 500, nullable: true })
  alt: string | null;

  @Field(() => String, { nullable: true, description: 'A caption (at most 1000 characters)' })
  @Column({ type: 'varchar', length: 1000, nullable: true })
  caption: string | null;

  /** The focal point's x, read through `focalPoint` (MediaRepository); never a field of its own. */
  @Column({ name: 'focal_x', type: 'float', nullable: true, select: false })
  focalX?: number | null;

  /** The focal point's y, likewise. */
  @Column({ name: 'focal_y', type: 'float', nullable: true, select: false })
  focalY?: number | null;

  @Field(() => Int, { description: 'The id of the user who uploaded it' })
  @Column({ name: 'uploader_id', type: 'integer' })
  uploaderId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'uploader_id', foreignKeyConstraintName: 'FK_media_uploader' })
  uploader?: User;

  @Field(() => GraphQLISODateTime, { description: 'When it was uploaded' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, { description: 'When its text or focal point last changed' })
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;

  /** Where its subject is; null: the centre. Read with the row (no column of its own). */
  @Field(() => FocalPoint, { nullable: true, description: 'Where its subject is (x, y from 0 to 1); null: not said' })
  focalPoint?: FocalPoint | null;

  /** The variants made so far, narrowest first: read with the row. */
  @ListSize({ assumedSize: DEFAULT_VARIANT_COUNT })
  @Field(() => [MediaVariant], { description: 'The variants made so far, narrowest first (they appear in the background after the upload)' })
  variants?: MediaVariant[];

  /** Whether the public sees it (a public post uses it; MediaRepository): read with the row, never a field. */
  isPublic?: boolean;
}
