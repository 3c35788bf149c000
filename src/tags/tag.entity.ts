import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { EntityKey } from '../common/graphql/entity-reference.js';
import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';

/** Also the GraphQL `Tag` type (postCount and posts are resolved fields; never the version). */
@EntityKey()
@ObjectType('Tag', { description: 'A label on posts, by which readers find them' })
@Entity({ name: 'tags' })
export class Tag {
  @Field(() => Int, { description: "The tag's id" })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String, { description: 'Its name, as written (1-50 characters)' })
  @Column({ type: 'varchar', length: 50 })
  name: string;

  @Field(() => String, { description: 'Its name in lower-case a-z0-9 and dashes, unique: what posts and filters name it by' })
  @Column({ type: 'varchar', length: 50 })
  slug: string;

  @Field(() => GraphQLISODateTime, { description: 'When it was made' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, { description: 'When it last changed' })
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;

  /** How many public posts carry it: read with the row (no column; GraphQL's Tag.postCount). */
  postCount?: number;

  /** Whether the public sees it (CONTRACT §18; TagsRepository): read with the row, never a field. */
  isPublic?: boolean;
}
