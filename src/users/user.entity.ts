import { Column, Entity, PrimaryGeneratedColumn, Unique, VersionColumn } from 'typeorm';

export const USER_ROLES = ['admin', 'author'] as const;
export type UserRole = (typeof USER_ROLES)[number];

@Entity({ name: 'users' })
@Unique('UQ_users_email', ['email'])
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** Stored lower-cased, so the unique index makes e-mails unique case-insensitively on every database. */
  @Column({ type: 'varchar', length: 320 })
  email: string;

  /** Never leaves the service: not selected unless asked for, never part of a representation. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Column({ name: 'avatar_url', type: 'varchar', length: 2048, nullable: true })
  avatarUrl: string | null;

  @Column({ type: 'varchar', length: 16 })
  role: UserRole;

  @Column({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'updated_at' })
  updatedAt: Date;

  /** Bumped on every change; the ETag of the user. */
  @VersionColumn()
  version: number;
}
