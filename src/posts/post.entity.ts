import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { User } from '../users/user.entity.js';

/** Also the GraphQL `Post` type (author, comments and commentCount are resolved fields; never the version). */
@ObjectType('Post', { description: 'A blog post' })
@Entity({ name: 'posts' })
@Index('idx_posts_author_id_id', ['authorId', 'id'])
export class Post {
  @Field(() => Int, { description: 'The post\'s id' })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String, { description: 'The title (1-200 characters)' })
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Field(() => String, { description: 'The text, as written' })
  @Column({ type: 'text' })
  body: string;

  @Field(() => Int, { description: 'The id of the user who wrote it' })
  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'author_id', foreignKeyConstraintName: 'FK_posts_author' })
  author?: User;

  @Field(() => GraphQLISODateTime, { description: 'When it was written' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, { description: 'When it last changed' })
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;
}
