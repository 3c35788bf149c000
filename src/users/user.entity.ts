import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import { Column, Entity, PrimaryGeneratedColumn, Unique, VersionColumn } from 'typeorm';

import { type Role, ROLES } from '../common/actor.js';

export const USER_ROLES = ROLES;
export type UserRole = Role;

/** Also the GraphQL `User` type: the password hash and the version are not fields of it. */
@ObjectType('User')
@Entity({ name: 'users' })
@Unique('UQ_users_email', ['email'])
export class User {
  @Field(() => Int)
  @PrimaryGeneratedColumn()
  id: number;

  @Field(() => String)
  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** Stored lower-cased, so the unique index makes e-mails unique case-insensitively on every database. */
  @Field(() => String)
  @Column({ type: 'varchar', length: 320 })
  email: string;

  /** Never leaves the service: not selected unless asked for, never part of a representation. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Field(() => String, { nullable: true })
  @Column({ name: 'avatar_url', type: 'varchar', length: 2048, nullable: true })
  avatarUrl: string | null;

  @Field(() => String)
  @Column({ type: 'varchar', length: 16 })
  role: UserRole;

  @Field(() => GraphQLISODateTime)
  @Column({ name: 'created_at' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime)
  @Column({ name: 'updated_at' })
  updatedAt: Date;

  /** Tokens issued before this (a password change, a revocation) are refused. Never part of a representation. */
  @Column({ name: 'tokens_valid_after', type: Date, nullable: true, select: false })
  tokensValidAfter: Date | null;

  /** Bumped on every change; the ETag of the user. */
  @VersionColumn()
  version: number;
}
