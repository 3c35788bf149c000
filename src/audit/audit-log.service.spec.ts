import { describe, expect, it } from 'vitest';
import type { Executor } from '../common/persistence/sql.js';
import type { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { requestSource } from '../common/http/request-source.js';
import { PERMISSIONS, type Action } from '../auth/permissions.js';
import { AUDIT_ACTIONS, renderAuditActions } from './audit-actions.js';
import type { AuditEntriesRepository, NewAuditEntry } from './audit-entries.repository.js';
import { AuditLog, changesOf, REDACTED, secretChange, SYSTEM } from './audit-log.service.js';

/** An AuditLog whose repository keeps what it is given. */
function recording(): { log: AuditLog; written: NewAuditEntry[] } {
  const written: NewAuditEntry[] = [];
  const repository = { append: (_executor: Executor, entries: readonly NewAuditEntry[]) => (written.push(...entries), Promise.resolve()) } as unknown as AuditEntriesRepository;
  const transactions = { single: <T>(work: () => Promise<T>) => work() } as unknown as TransactionRunner;
  return { log: new AuditLog(repository, transactions), written };
}

const executor = {} as Executor;

describe('AuditLog', () => {
  it('names the actor by credential: a token, an API key with its id, an identity provider, the system, nobody', async () => {
    const { log, written } = recording();
    const resource = { type: 'post', id: 1 };
    await log.record(executor, { id: 7, role: 'author' }, { action: 'posts.update', resource });
    await log.record(executor, { id: 7, role: 'author', apiKeyId: 3, scopes: ['read', 'write'] }, { action: 'posts.update', resource });
    await log.record(executor, { id: 8, role: 'editor', external: true }, { action: 'posts.update', resource });
    await log.record(executor, SYSTEM, { action: 'posts.publish', resource });
    await log.record(executor, null, { action: 'auth.signInFailed', resource: { type: 'user', id: null } });
    expect(written.map(({ actorId, actorCredential, actorKeyId }) => [actorId, actorCredential, actorKeyId])).toEqual([
      [7, 'token', null],
      [7, 'api-key', 3],
      [8, 'sso', null],
      [null, 'system', null],
      [null, null, null],
    ]);
  });

  it('takes the address, user agent and request id from the request source, and none without one', async () => {
    const { log, written } = recording();
    const source = { ip: '203.0.113.9', headers: { 'user-agent': `agent/${'x'.repeat(600)}` }, id: 'req-1' };
    await requestSource.run(source, () => log.record(executor, SYSTEM, { action: 'posts.publish', resource: { type: 'post', id: 1 } }));
    await log.record(executor, SYSTEM, { action: 'posts.publish', resource: { type: 'post', id: 1 } });
    expect(written[0]).toMatchObject({ ip: '203.0.113.9', requestId: 'req-1' });
    expect(written[0].userAgent).toHaveLength(512);
    expect(written[1]).toMatchObject({ ip: null, userAgent: null, requestId: null, traceId: null });
  });

  it('never writes the value of a secret field, whoever records it', async () => {
    const { log, written } = recording();
    const changes = { password: { from: 'old-secret', to: 'new-secret' }, secret: { from: null, to: 'whsec' }, name: { from: 'A', to: 'B' } };
    await log.record(executor, SYSTEM, { action: 'users.update', resource: { type: 'user', id: 2 }, changes });
    expect(JSON.parse(written[0].changes)).toEqual({ password: { from: REDACTED, to: REDACTED }, secret: { from: REDACTED, to: REDACTED }, name: { from: 'A', to: 'B' } });
    expect(written[0].changes).not.toMatch(/old-secret|new-secret|whsec/);
    expect(secretChange('password')).toEqual({ password: { from: REDACTED, to: REDACTED } });
  });
});

describe('changesOf', () => {
  const at = new Date('2026-12-04T10:00:00.000Z');

  it('lists the fields that differ, times as ISO 8601, absent as null', () => {
    expect(changesOf({ title: 'A', status: 'draft', publishAt: null as Date | null }, { title: 'B', status: 'draft', publishAt: at }, ['title', 'status', 'publishAt'])).toEqual({
      title: { from: 'A', to: 'B' },
      publishAt: { from: null, to: '2026-12-04T10:00:00.000Z' },
    });
  });

  it('a new resource has every field from null, a deleted one every field to null; equal times and arrays are no change', () => {
    expect(changesOf(null, { title: 'A', tags: ['x'] }, ['title', 'tags'])).toEqual({ title: { from: null, to: 'A' }, tags: { from: null, to: ['x'] } });
    expect(changesOf({ title: 'A' }, null, ['title'])).toEqual({ title: { from: 'A', to: null } });
    expect(changesOf({ at: new Date(at), tags: ['x', 'y'] }, { at: new Date(at), tags: ['x', 'y'] }, ['at', 'tags'])).toEqual({});
  });
});

describe('the audit actions', () => {
  it('every row of the permissions table but the reading of non-public content and of the log itself has an action', () => {
    const covered = new Set(Object.values(AUDIT_ACTIONS).flatMap((action: { permission: Action | null; alsoUnder?: Action }) => [action.permission, action.alsoUnder]));
    const missing = (Object.keys(PERMISSIONS) as Action[]).filter((permission) => permission !== 'posts.readNonPublic' && permission !== 'audit.read' && !covered.has(permission));
    expect(missing).toEqual([]);
  });

  it('the docs table has one row per action', () => {
    const lines = renderAuditActions().split('\n');
    expect(lines).toHaveLength(2 + Object.keys(AUDIT_ACTIONS).length);
    expect(lines).toContain('| `posts.review` | A review decision: approve or request changes | `posts.review` | `post` |');
  });
});
