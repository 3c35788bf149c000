import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { User } from '../users/user.entity.js';

/** Also the GraphQL `Post` type (author, comments and commentCount are resolved fields; never the version). */
@ObjectType('Post')
@Entity({ name: 'posts' })
@Index('idx_posts_author_id_id', ['authorId', 'id'])
export class Post {
  @Field(() => Int)
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String)
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Field(() => String)
  @Column({ type: 'text' })
  body: string;

  @Field(() => Int)
  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'author_id', foreignKeyConstraintName: 'FK_posts_author' })
  author?: User;

  @Field(() => GraphQLISODateTime)
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime)
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;
}
