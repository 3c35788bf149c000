import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService, UNIT_EXECUTOR } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import type { DomainError } from '../common/errors/domain-error.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { createValidationPipe } from '../common/validation/validation.pipe.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { type NewWebhook, type WebhookRecord, WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';
import { RESOURCES } from '../resources.js';

// Admins' webhooks: who may manage them, which URLs are refused, the secret, where sending starts.
// URLs are IP literals, so the address guard decides without DNS.

const admin: Actor = { id: 1, role: 'admin' };
const author: Actor = { id: 2, role: 'author' };
const adminsReadKey: Actor = { id: 1, role: 'admin', scopes: ['read'], apiKeyId: 5 };
const PUBLIC_URL = 'https://203.0.113.10/hooks/blog';
const LOOPBACK_URL = 'http://127.0.0.1:8080/hook';

const record = (fields: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id: 4, url: PUBLIC_URL, types: ['POST_CREATED'], description: null, active: true, after: { tx: 0, id: 0 }, createdAt: new Date(0), updatedAt: new Date(0), ...fields,
});

describe('WebhooksService', () => {
  let webhooks: Mocked<WebhooksRepository>;
  let outbox: Mocked<OutboxRepository>;
  let dispatcher: Mocked<WebhookDispatcher>;
  let service: WebhooksService;

  const build = async (env: Record<string, string> = {}) => {
    const unit = await newTestService(WebhooksService, { real: [new AuthorizationPolicy()], env });
    ({ service } = unit);
    webhooks = unit.mock(WebhooksRepository);
    outbox = unit.mock(OutboxRepository);
    dispatcher = unit.mock(WebhookDispatcher);
    webhooks.insert.mockImplementation(async ({ secret: _secret, ...values }: NewWebhook) => record({ ...values, types: [...values.types] }));
    webhooks.findById.mockResolvedValue(record());
    webhooks.list.mockResolvedValue([record()]);
    webhooks.update.mockImplementation(async (id, changes) => record({ id, ...(changes as Partial<WebhookRecord>) }));
    webhooks.delete.mockResolvedValue(true);
    webhooks.feedPosition.mockResolvedValue({ tx: 0, id: 0 });
    outbox.latest.mockResolvedValue({ tx: 0, id: 40 });
  };
  beforeEach(() => build());

  it('is for admins only: 401 anonymous, 403 an author, INSUFFICIENT_SCOPE for an admin’s read-only key, reads included', async () => {
    const input = { url: PUBLIC_URL, types: ['POST_CREATED' as const] };
    expect(await codeOf(service.create(input, null))).toBe('UNAUTHENTICATED');
    expect(await codeOf(service.create(input, author))).toBe('FORBIDDEN');
    expect(await codeOf(service.create(input, adminsReadKey))).toBe('INSUFFICIENT_SCOPE');
    expect(await codeOf(service.list(author))).toBe('FORBIDDEN');
    expect(await codeOf(service.list(adminsReadKey))).toBe('INSUFFICIENT_SCOPE');
    expect(await codeOf(service.delete(4, author))).toBe('FORBIDDEN');
    expect(webhooks.insert).not.toHaveBeenCalled();
    expect(webhooks.list).not.toHaveBeenCalled();
    expect(webhooks.delete).not.toHaveBeenCalled();
  });

  it('refuses a URL whose host is not public (400 on `url`), on create and on update, unless WEBHOOK_ALLOW_PRIVATE', async () => {
    const refused = await service.create({ url: LOOPBACK_URL, types: ['POST_CREATED'] }, admin).catch((error: DomainError) => error);
    expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'url', message: expect.stringContaining('127.0.0.1') }] });
    expect(await codeOf(service.update(4, { url: 'http://[::1]/hook' }, admin))).toBe('BAD_USER_INPUT');
    expect(webhooks.insert).not.toHaveBeenCalled();
    expect(webhooks.update).not.toHaveBeenCalled();
    await build({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    await service.create({ url: LOOPBACK_URL, types: ['POST_CREATED'] }, admin);
    expect(webhooks.insert).toHaveBeenCalledWith(expect.objectContaining({ url: LOOPBACK_URL }), UNIT_EXECUTOR);
  });

  it('shows the signing secret once: in the answer that created it, never in a later read', async () => {
    const created = await service.create({ url: PUBLIC_URL, types: ['POST_CREATED'] }, admin);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhooks.insert.mock.calls[0][0].secret).toBe(created.secret);
    expect(await service.get(4, admin)).not.toHaveProperty('secret');
    expect((await service.list(admin))[0]).not.toHaveProperty('secret');
    expect(dispatcher.refresh).toHaveBeenCalled();
  });

  it('stores each event type once', async () => {
    await service.create({ url: PUBLIC_URL, types: ['POST_CREATED', 'COMMENT_DELETED', 'POST_CREATED'] }, admin);
    expect(webhooks.insert.mock.calls[0][0].types).toEqual(['POST_CREATED', 'COMMENT_DELETED']);
    await service.update(4, { types: ['POST_DELETED', 'POST_DELETED'] }, admin);
    expect(webhooks.update).toHaveBeenCalledWith(4, expect.objectContaining({ types: ['POST_DELETED'] }), UNIT_EXECUTOR);
  });

  it("starts after the events already logged, or after the feeder's position when that is further", async () => {
    outbox.latest.mockResolvedValue({ tx: 0, id: 40 });
    webhooks.feedPosition.mockResolvedValueOnce({ tx: 0, id: 10 }).mockResolvedValueOnce({ tx: 0, id: 55 });
    await service.create({ url: PUBLIC_URL, types: ['POST_CREATED'] }, admin);
    await service.create({ url: PUBLIC_URL, types: ['POST_CREATED'] }, admin);
    expect(webhooks.insert.mock.calls.map(([values]) => values.after)).toEqual([{ tx: 0, id: 40 }, { tx: 0, id: 55 }]);
    // Read under the feeder's lock, so no event is queued for the others without this one.
    expect(webhooks.feedPosition).toHaveBeenCalledWith(UNIT_EXECUTOR, true);
  });

  it('turned on again, skips what happened while it was off; an active one keeps its place', async () => {
    webhooks.findById.mockResolvedValueOnce(record({ active: false }));
    await service.update(4, { active: true }, admin);
    expect(webhooks.update).toHaveBeenLastCalledWith(4, expect.objectContaining({ active: true, after: { tx: 0, id: 40 } }), UNIT_EXECUTOR);
    await service.update(4, { active: true }, admin);
    expect(webhooks.update).toHaveBeenLastCalledWith(4, expect.objectContaining({ active: true, after: undefined }), UNIT_EXECUTOR);
  });

  it('is NOT_FOUND for a webhook that does not exist, and refreshes no dispatcher then', async () => {
    webhooks.findById.mockResolvedValue(null);
    expect(await codeOf(service.update(9, { description: 'x' }, admin))).toBe('NOT_FOUND');
    expect(await codeOf(service.delete(9, admin))).toBe('NOT_FOUND');
    expect(await codeOf(service.attempts(9, admin))).toBe('NOT_FOUND');
    expect(dispatcher.refresh).not.toHaveBeenCalled();
  });
});

describe('CreateWebhookDto', () => {
  const validate = (body: object) =>
    // The resources declare the event types a webhook may ask for: the pipe hands the DTO its application's catalog.
    createValidationPipe(new ResourceCatalog(RESOURCES))
      .transform(body, { type: 'body', metatype: CreateWebhookDto })
      .then(
        () => [],
        (error: DomainError) => error.fieldErrors?.map(({ field }) => field),
      );

  it('takes a non-empty list of known event types, each once', async () => {
    expect(await validate({ url: PUBLIC_URL, types: ['POST_CREATED', 'COMMENT_UPDATED'] })).toEqual([]);
    expect(await validate({ url: PUBLIC_URL, types: [] })).toEqual(['types']);
    expect(await validate({ url: PUBLIC_URL, types: ['POST_REVIVED'] })).toEqual(['types']);
    expect(await validate({ url: PUBLIC_URL, types: ['POST_CREATED', 'POST_CREATED'] })).toEqual(['types']);
    expect(await validate({ url: PUBLIC_URL, types: 'POST_CREATED' })).toEqual(['types']);
    expect(await validate({ url: PUBLIC_URL })).toEqual(['types']);
  });

  it('takes only http(s) URLs', async () => {
    expect(await validate({ url: 'ftp://203.0.113.10/x', types: ['POST_CREATED'] })).toEqual(['url']);
  });
});
