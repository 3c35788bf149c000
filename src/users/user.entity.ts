import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { EntityKey } from '../common/graphql/entity-reference.js';
import { Column, Entity, PrimaryGeneratedColumn, Unique, VersionColumn } from 'typeorm';

import { type Role, ROLES } from '../common/actor.js';
import { GraphQLRole } from './models/role.enum.js';

export const USER_ROLES = ROLES;
export type UserRole = Role;

/** Also the GraphQL `User` type: the password hash and the version are not fields of it. */
@EntityKey()
@ObjectType('User', { description: 'Someone who writes posts and comments' })
@Entity({ name: 'users' })
@Unique('UQ_users_email', ['email'])
export class User {
  @Field(() => Int, { description: 'The user\'s id' })
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String, { description: 'The name shown with their posts and comments' })
  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** Stored lower-cased, so the unique index makes e-mails unique case-insensitively on every database. */
  @Field(() => String, { description: 'The e-mail they sign in with, lower-cased; unique' })
  @Column({ type: 'varchar', length: 320 })
  email: string;

  /** Never leaves the service: not selected unless asked for, never part of a representation. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Field(() => String, { nullable: true, description: 'An http(s) URL of their picture; null: none' })
  @Column({ name: 'avatar_url', type: 'varchar', length: 2048, nullable: true })
  avatarUrl: string | null;

  @Field(() => GraphQLRole, { description: 'What they may do' })
  @Column({ type: 'varchar', length: 16 })
  role: UserRole;

  /** Set by moderators, editors and admins: their new comments are refused (403 COMMENTS_BLOCKED). */
  @Field(() => Boolean, { nullable: true, description: 'Whether their new comments are refused (403 COMMENTS_BLOCKED); null unless you are this user or may block commenters' })
  @Column({ name: 'comments_blocked', type: 'boolean', default: false })
  commentsBlocked: boolean;

  @Field(() => GraphQLISODateTime, { description: 'When they signed up' })
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, { description: 'When their account last changed' })
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  /** Tokens issued before this (a password change, a revocation) are refused. Never part of a representation. */
  @Column({ name: 'tokens_valid_after', type: Date, nullable: true, select: false })
  tokensValidAfter: Date | null;

  /** Bumped on every change; the ETag of the user. */
  @VersionColumn()
  version: number;
}
