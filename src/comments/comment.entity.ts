import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { Post } from '../posts/post.entity.js';
import { User } from '../users/user.entity.js';

@Entity({ name: 'comments' })
@Index('idx_comments_post_id_id', ['postId', 'id'])
@Index('idx_comments_author_id', ['authorId'])
export class Comment {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'post_id', type: 'integer' })
  postId: number;

  @ManyToOne(() => Post, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'post_id', foreignKeyConstraintName: 'FK_comments_post' })
  post?: Post;

  @Column({ type: 'text' })
  body: string;

  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'author_id', foreignKeyConstraintName: 'FK_comments_author' })
  author?: User;

  @Column({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;
}
