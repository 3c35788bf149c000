import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';

/** An admin's subscription of a URL to some types of events. */
@Entity({ name: 'webhooks' })
export class Webhook {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** The event types, comma-separated (`POST_CREATED,COMMENT_CREATED`). */
  @Column({ type: 'varchar', length: 200 })
  types: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** `whsec_…`: the signing secret, shown only when the webhook is created. */
  @Column({ type: 'varchar', length: 100, select: false })
  secret: string;

  @Column({ type: 'boolean' })
  active: boolean;

  /** The outbox position the webhook starts after: events recorded before it was created are not sent. */
  @Column({ name: 'after_tx', type: 'bigint' })
  afterTx: number;

  @Column({ name: 'after_id', type: 'bigint' })
  afterId: number;

  @Column({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'updated_at' })
  updatedAt: Date;

  @VersionColumn()
  version: number;
}
