import type { InjectionToken, Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { EntityManager } from 'typeorm';
import { type Mock, type Mocked, vi } from 'vitest';
import { TransactionRunner } from '../../src/common/persistence/transaction-runner.js';
import { AppConfig, loadConfig } from '../../src/config/app-config.js';

/**
 * The unit tier: a service built by Nest's own injector (so its constructor metadata is what the
 * application uses), with every dependency replaced by a mock derived from the dependency's class,
 * except the real collaborators a spec passes. No database, no application.
 *
 *   const unit = await newTestService(PostsService, { real: [new AuthorizationPolicy()] });
 *   unit.mock(PostsRepository).findById.mockResolvedValue(post);
 *   await unit.service.update(7, { title: 'X' }, alice);
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a constructor of any arity
type Class<T> = abstract new (...args: any[]) => T;

export interface TestServiceOptions {
  /** Real collaborators, each standing for the dependency of its own class (e.g. `new AuthorizationPolicy()`). */
  real?: object[];
  /** Dependencies injected by a token (`@Inject(TOKEN)`), which no class describes: `{ provide: TOKEN, useValue }`. */
  providers?: Provider[];
  /** The settings of an `AppConfig` dependency, as environment variables read by the real loader. */
  env?: Record<string, string>;
}

export interface TestService<S> {
  service: S;
  /** The mock that stands for the service's dependency of this class. */
  mock<T extends object>(type: Class<T>): Mocked<T>;
}

/** What `TransactionRunner.run` hands the work of a unit spec: no connection stands behind it. */
export const UNIT_EXECUTOR = Object.freeze({ unitExecutor: true }) as unknown as EntityManager;

/**
 * Builds `Service` with mocks for its constructor dependencies. Defaults that every service
 * needs to run at all: `TransactionRunner` runs the work at once with UNIT_EXECUTOR (its `run`
 * and `single` are still mocks to assert on), `AppConfig` is the real loader's over `env`.
 */
export async function newTestService<S>(Service: Class<S>, options: TestServiceOptions = {}): Promise<TestService<S>> {
  const mocks = new Map<InjectionToken, object>();
  const moduleRef = await Test.createTestingModule({
    providers: [
      Service as Class<S> & Provider,
      ...(options.real ?? []).map((instance) => ({ provide: instance.constructor, useValue: instance })),
      ...(options.providers ?? []),
    ],
  })
    .useMocker((token) => {
      if (token === AppConfig) return loadConfig({ NODE_ENV: 'test', ...options.env });
      if (typeof token !== 'function') {
        throw new Error(`${Service.name} injects ${String(token)}: give it in \`providers\` ({ provide: token, useValue })`);
      }
      const mock = automock(token as Class<object>);
      if (token === TransactionRunner) inlineTransactions(mock as Mocked<TransactionRunner>);
      mocks.set(token, mock);
      return mock;
    })
    .compile();
  return {
    service: moduleRef.get<S>(Service),
    mock<T extends object>(type: Class<T>): Mocked<T> {
      const mock = mocks.get(type);
      if (!mock) throw new Error(`${Service.name} has no mocked dependency of class ${type.name} (not a dependency, or a real one was given)`);
      return mock as Mocked<T>;
    },
  };
}

/**
 * A stand-in for an instance of `type`: every method of its prototype chain is a `vi.fn()`,
 * so a method added to the class needs no change here. An `async` method's mock resolves to
 * undefined, any other returns undefined, until a spec says otherwise. Fields and getters are
 * absent (a spec sets the ones it needs).
 */
export function automock<T extends object>(type: Class<T>): Mocked<T> {
  const mock: Record<string, Mock> = {};
  for (let prototype = type.prototype; prototype && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype)) {
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const { value } = Object.getOwnPropertyDescriptor(prototype, name) ?? {};
      if (name === 'constructor' || name in mock || typeof value !== 'function') continue;
      const fn = value.constructor.name === 'AsyncFunction' ? vi.fn(async () => undefined) : vi.fn();
      mock[name] = fn.mockName(`${type.name}.${name}`);
    }
  }
  return mock as unknown as Mocked<T>;
}

function inlineTransactions(transactions: Mocked<TransactionRunner>): void {
  transactions.run.mockImplementation((work) => work(UNIT_EXECUTOR));
  transactions.single.mockImplementation((work) => work());
}

/** The domain error code a call ends with, or 'resolved'. */
export const codeOf = (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code,
  );
