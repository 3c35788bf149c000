import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type AuditChanges, AuditLog, changesOf, secretChange } from '../audit/audit-log.service.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { Executor } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { AppConfig } from '../config/app-config.js';
import { type EventPosition, isAfter } from '../events/event-cursor.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { BlockedAddressError, resolvePublic } from './address-guard.js';
import type { CreateWebhookDto, EventType } from './dto/create-webhook.dto.js';
import type { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import { type AttemptRecord, WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { type WebhookRecord, WebhooksRepository } from './webhooks.repository.js';

/** A webhook as admins see it (JSON writes the dates in ISO 8601); `secret` only in the answer that created it. */
export interface WebhookView {
  id: number;
  url: string;
  types: EventType[];
  description: string | null;
  active: boolean;
  createdAt: Date;
  secret?: string;
}

/** A webhook's fields its audit entries show (its secret is named, never valued). */
const AUDITED_FIELDS = ['url', 'types', 'description', 'active'] as const satisfies readonly (keyof WebhookRecord)[];

/** The attempts GET /webhooks/{id}/deliveries lists. */
const ATTEMPTS_LISTED = 50;

/** Webhooks: admins register URLs for event types; WebhookDispatcher sends them the events. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly outbox: OutboxRepository,
    private readonly transactions: TransactionRunner,
    private readonly policy: AuthorizationPolicy,
    private readonly config: AppConfig,
    private readonly dispatcher: WebhookDispatcher,
    private readonly audit: AuditLog,
  ) {}

  async create(input: CreateWebhookDto, actor: Actor | null): Promise<WebhookView & { secret: string }> {
    const who = this.policy.authorize(actor, 'webhooks.manage');
    await this.assertReachable(input.url);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const latest = await this.outbox.latest();
    const created = await this.transactions.run(async (manager) => {
      const after = await this.startingPoint(latest, manager);
      const inserted = await this.webhooks.insert({ url: input.url, types: unique(input.types), description: input.description ?? null, secret, after }, manager);
      await this.audit.record(manager, who, { action: 'webhooks.create', resource: { type: 'webhook', id: inserted.id }, changes: { ...changesOf(null, inserted, AUDITED_FIELDS), ...secretChange('secret') } });
      return inserted;
    });
    this.dispatcher.refresh();
    return { ...toView(created), secret };
  }

  async list(actor: Actor | null): Promise<WebhookView[]> {
    this.policy.authorizeRead(actor, 'webhooks.manage');
    return (await this.webhooks.list()).map(toView);
  }

  async get(id: number, actor: Actor | null): Promise<WebhookView> {
    this.policy.authorizeRead(actor, 'webhooks.manage');
    return toView(await this.find(id));
  }

  async update(id: number, input: UpdateWebhookDto, actor: Actor | null): Promise<WebhookView> {
    const who = this.policy.authorize(actor, 'webhooks.manage');
    if (input.url !== undefined) await this.assertReachable(input.url);
    // Turned on again: what happened while it was off is not sent.
    const latest = input.active === true ? await this.outbox.latest() : undefined;
    const updated = await this.transactions.run(async (manager) => {
      const current = await this.webhooks.findById(id, manager);
      if (!current) return null;
      const after = latest && !current.active ? await this.startingPoint(latest, manager) : undefined;
      const changed = await this.webhooks.update(
        id,
        { url: input.url, types: input.types ? unique(input.types) : undefined, description: input.description, active: input.active, after },
        manager,
      );
      const changes: AuditChanges = changed ? changesOf(current, changed, AUDITED_FIELDS) : {};
      if (Object.keys(changes).length > 0) await this.audit.record(manager, who, { action: 'webhooks.update', resource: { type: 'webhook', id }, changes });
      return changed;
    });
    if (!updated) throw DomainError.notFound('Webhook', id);
    this.dispatcher.refresh();
    return toView(updated);
  }

  async delete(id: number, actor: Actor | null): Promise<void> {
    const who = this.policy.authorize(actor, 'webhooks.manage');
    const deleted = await this.transactions.run(async (manager) => {
      const current = await this.webhooks.findById(id, manager);
      if (!current || !(await this.webhooks.delete(id, manager))) return false;
      await this.audit.record(manager, who, { action: 'webhooks.delete', resource: { type: 'webhook', id }, changes: changesOf(current, null, AUDITED_FIELDS) });
      return true;
    });
    if (!deleted) throw DomainError.notFound('Webhook', id);
    this.dispatcher.refresh();
  }

  /** The webhook's latest attempts, newest first. */
  async attempts(id: number, actor: Actor | null): Promise<AttemptRecord[]> {
    this.policy.authorizeRead(actor, 'webhooks.manage');
    await this.find(id);
    return this.deliveries.attempts(id, ATTEMPTS_LISTED);
  }

  /**
   * Where a webhook starts: events already in the log are history, so after the newest one, or
   * after where the feeder is if that is further. The feeder's position is read under its lock,
   * so no event is queued for the other webhooks without this one while it is being written.
   */
  private async startingPoint(latest: EventPosition, manager: Executor): Promise<EventPosition> {
    const fed = await this.webhooks.feedPosition(manager, true);
    return isAfter(fed, latest) ? fed : latest;
  }

  private async find(id: number): Promise<WebhookRecord> {
    const webhook = await this.webhooks.findById(id);
    if (!webhook) throw DomainError.notFound('Webhook', id);
    return webhook;
  }

  /** The URL's host must resolve, and (unless WEBHOOK_ALLOW_PRIVATE) only to public addresses. */
  private async assertReachable(url: string): Promise<void> {
    try {
      await resolvePublic(new URL(url), this.config.webhookAllowPrivate);
    } catch (error) {
      const reason = error instanceof BlockedAddressError ? error.message : `its host could not be resolved (${error instanceof Error ? error.message : String(error)})`;
      throw DomainError.badInput(`url is refused: ${reason}`, [{ field: 'url', message: `url is refused: ${reason}` }]);
    }
  }
}

const unique = (types: readonly EventType[]): EventType[] => [...new Set(types)];

function toView(webhook: WebhookRecord): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    types: webhook.types,
    description: webhook.description,
    active: webhook.active,
    createdAt: webhook.createdAt,
  };
}
