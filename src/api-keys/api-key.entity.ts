import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { User } from '../users/user.entity.js';

/** A user's key for integrations: only its keyed hash is stored. */
@Entity({ name: 'api_keys' })
@Index('idx_api_keys_user_id', ['userId'])
export class ApiKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_api_keys_user' })
  user?: User;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** HMAC-SHA256 of the key: never read back with the row. */
  @Column({ name: 'key_hash', type: 'varchar', length: 64, unique: true, select: false })
  keyHash: string;

  /** `read` or `read,write`. */
  @Column({ type: 'varchar', length: 20 })
  scopes: string;

  @Column({ name: 'expires_at', type: Date, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'last_used_at', type: Date, nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;
}
