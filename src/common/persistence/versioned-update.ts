import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { DomainError } from '../errors/domain-error.js';

export interface WriteOptions {
  /** The version the client last saw (from If-Match); the write fails with 412 if it moved on. */
  expectedVersion?: number;
}

interface Versioned extends ObjectLiteral {
  id: number;
  version: number;
  updatedAt: Date;
}

/**
 * Applies `changes` to one row inside the caller's transaction, bumping its version, and
 * returns the row as it now is. With `expectedVersion` (from If-Match) the write only
 * happens if nobody changed the row since: of two writers with the same version, exactly
 * one wins and the other gets 412 with nothing changed.
 */
export async function updateVersioned<T extends Versioned>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  current: T,
  changes: Partial<T>,
  expectedVersion?: number,
): Promise<T> {
  if (expectedVersion !== undefined && expectedVersion !== current.version) throw preconditionFailed();
  const result = await manager
    .createQueryBuilder()
    .update(entity)
    .set({ ...changes, updatedAt: new Date(), version: () => 'version + 1' } as never)
    .where(expectedVersion === undefined ? 'id = :id' : 'id = :id AND version = :version', {
      id: current.id,
      version: expectedVersion,
    })
    .execute();
  if (result.affected === 0) {
    // Without If-Match, no row matched because a concurrent DELETE removed it: 404, not 412.
    if (expectedVersion === undefined) throw DomainError.notFound(manager.getRepository(entity).metadata.name, current.id);
    throw preconditionFailed();
  }
  return (await manager.getRepository(entity).findOneBy({ id: current.id } as never))!;
}

function preconditionFailed(): DomainError {
  return new DomainError('PRECONDITION_FAILED', 'The resource has changed since you read it (If-Match failed)');
}
