import { Injectable } from '@nestjs/common';
import { execute, type ExecutionArgs, type ExecutionResult, GraphQLError, type GraphQLSchema } from 'graphql';
import { requestSource, withRequestSource } from '../../../common/http/request-source.js';
import { ReadPolicy } from '../../../auth/read-policy.js';
import type { Actor } from '../../../common/actor.js';
import type { GraphQLContext } from '../../../common/graphql/graphql-context.js';
import { ReplicaSet } from '../../../database/replicas/replica-set.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { contextOf, failSpan, runInContext, type Span, SpanKind, startSpan } from '../../../tracing/spans.js';
import { tracingState } from '../../../tracing/tracing-state.js';
import { type AdmittedOperation, type Caller, OperationGate } from '../gate/operation-gate.js';
import type { RawOperation } from '../gate/request-checks.js';
import { GraphQLContextFactory } from '../graphql-context.factory.js';
import { SharedExecution, type SubscriptionStream } from './shared-execution.js';

/**
 * The one path of an operation that came over a socket or a stream, for both live transports:
 * through the gate to its execution arguments (counted in graphql_operations_total{type} like
 * HTTP operations, a subscription holding its share of the address's budget), then run — a
 * subscription through the shared execution, its hold released when its stream ends — and its
 * errors formatted by the gate's formatter, as HTTP's are.
 */
@Injectable()
export class OperationRunner {
  private schema?: GraphQLSchema;
  private readonly shared: SharedExecution;
  /** A subscription's hold on its address's budget, by its context, from admission until it runs. */
  private readonly holds = new WeakMap<object, () => void>();
  /** With tracing on, an admitted query's or mutation's span, by its context, until it has run. */
  private readonly executing = new WeakMap<object, Span>();
  /** Subscribers sharing an execution share its formatting too (and an internal error is logged once). */
  private readonly formatted = new WeakMap<ExecutionResult, ExecutionResult>();
  /** The contexts of admitted mutations: once run, they leave their writer's commit position (read-your-writes). */
  private readonly mutations = new WeakSet<object>();

  constructor(
    private readonly gate: OperationGate,
    private readonly contexts: GraphQLContextFactory,
    private readonly metrics: MetricsService,
    policy: ReadPolicy,
    private readonly replicas: ReplicaSet,
  ) {
    // What a reader sees below an event depends on the posts the read policy lets them see.
    this.shared = new SharedExecution((context) => policy.viewKey((context as GraphQLContext | undefined)?.actor));
  }

  /**
   * The schema is handed over by GraphQLApiModule once GraphQLModule has built it: this module
   * cannot import GraphQLModule (importing its forRootAsync again would build a second server)
   * nor GraphQLApiModule (which imports the transports), and the schema exists only after
   * GraphQLModule's onModuleInit anyway.
   */
  useSchema(schema: GraphQLSchema): void {
    this.schema = schema;
  }

  private get currentSchema(): GraphQLSchema {
    if (!this.schema) throw new Error('OperationRunner: no schema yet (GraphQLApiModule hands it over at start-up)');
    return this.schema;
  }

  /** One operation through the gate: its execution arguments, or the errors to answer with. */
  async prepare(payload: RawOperation, caller: Caller, actor: Actor | null): Promise<ExecutionArgs | readonly GraphQLError[]> {
    if (!tracingState.enabled) return this.admit(payload, caller, actor);
    // With tracing on, a span per operation: a socket's starts a trace (no HTTP request around it),
    // a stream's is its request's child. A query's or mutation's lasts until run() has executed it.
    const span = startSpan(`graphql ${caller.transport}`, caller.transport === 'ws' ? SpanKind.SERVER : SpanKind.INTERNAL, { 'graphql.transport': caller.transport })!;
    try {
      const prepared = await runInContext(contextOf(span), () => this.admit(payload, caller, actor, span));
      if (isRefusal(prepared)) failSpan(span, prepared[0]);
      // An admitted query or mutation keeps its span open until execute() has run it.
      else if (this.executing.has(prepared.contextValue as object)) return prepared;
      span.end();
      return prepared;
    } catch (error) {
      failSpan(span, error);
      span.end();
      throw error;
    }
  }

  private async admit(payload: RawOperation, caller: Caller, actor: Actor | null, span?: Span): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const schema = this.currentSchema;
    const verdict = await this.gate.admit(payload, caller, schema);
    if (!('admitted' in verdict)) {
      this.metrics.recordGraphQLOperation('invalid');
      return 'refused' in verdict ? [verdict.refused] : verdict.invalid;
    }
    const operation = verdict.admitted;
    if (span) {
      const name = operation.operation.name?.value;
      span.updateName(`${operation.operation.operation} ${name ?? '(anonymous)'}`);
      span.setAttributes({ 'graphql.operation.type': operation.operation.operation, 'graphql.operation.cost': operation.cost });
      if (name) span.setAttribute('graphql.operation.name', name);
    }
    const contextValue = this.contexts.forActor(actor, caller.address);
    if (operation.operation.operation === 'mutation') this.mutations.add(contextValue);
    if (span) {
      // Its resolvers run inside the operation's span (tracing/resolver-context.ts).
      contextValue.traceContext = contextOf(span);
      if (operation.operation.operation !== 'subscription') this.executing.set(contextValue, span);
    }
    if (operation.operation.operation === 'subscription') {
      const hold = this.gate.subscriptions.hold(caller.address, executionKey(operation), operation.cost);
      if (hold instanceof GraphQLError) {
        this.metrics.recordGraphQLOperation('invalid');
        return [hold];
      }
      this.holds.set(contextValue, hold);
    }
    this.metrics.recordGraphQLOperation(operation.operation.operation);
    this.shared.remember(operation.document, operation.query);
    return {
      schema,
      document: operation.document,
      variableValues: operation.variables,
      operationName: operation.operationName,
      contextValue,
    };
  }

  /** Runs a subscription; its hold on the address's budget goes when the stream does. */
  async subscribe(args: ExecutionArgs): Promise<SubscriptionStream | ExecutionResult> {
    const hold = this.holds.get(args.contextValue as GraphQLContext);
    const release = () => hold?.();
    try {
      const stream = await this.shared.subscribe(args, release);
      if (!(Symbol.asyncIterator in stream)) release();
      return stream;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Runs an admitted operation: a subscription's stream, or a query's or mutation's one result. */
  async run(args: ExecutionArgs, subscription: boolean): Promise<SubscriptionStream | ExecutionResult> {
    return subscription ? this.subscribe(args) : this.execute(args);
  }

  /**
   * Executes a query or a mutation; with tracing on, its span (opened by prepare) ends with it. A
   * mutation, once run, leaves the primary's commit position for its writer's next reads, as one
   * over HTTP does (ReplicaSet.rememberWrite), before its result is sent.
   */
  async execute(args: ExecutionArgs): Promise<ExecutionResult> {
    const context = args.contextValue as GraphQLContext;
    // Over a socket no HTTP request is around the operation: its own source is (an SSE stream's request is).
    if (context.requestSource && requestSource.getStore() !== context.requestSource) {
      const { result, release } = withRequestSource(context.requestSource, () => this.execute(args));
      return result.finally(release);
    }
    if (!this.mutations.has(context)) return this.executeTraced(args);
    try {
      return await this.executeTraced(args);
    } finally {
      await this.replicas.rememberWrite(context.clientAddress);
    }
  }

  private async executeTraced(args: ExecutionArgs): Promise<ExecutionResult> {
    const span = this.executing.get(args.contextValue as object);
    if (!span) return execute(args);
    this.executing.delete(args.contextValue as object);
    try {
      const result = await execute(args);
      if (result.errors) failSpan(span, result.errors[0]);
      return result;
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** The same error shaping as HTTP (codes, masking, no schema hints when introspection is off). */
  formatErrors(errors: readonly GraphQLError[]): GraphQLError[] {
    // Formatted errors are plain JSON objects; the transports only serialize them.
    return errors.map((error) => this.gate.formatError(error.toJSON(), error) as GraphQLError);
  }

  formatResult<T extends ExecutionResult>(result: T): T {
    if (!result.errors) return result;
    let formatted = this.formatted.get(result);
    if (!formatted) this.formatted.set(result, (formatted = { ...result, errors: this.formatErrors(result.errors) }));
    return formatted as T;
  }
}

const isRefusal = (prepared: ExecutionArgs | readonly GraphQLError[]): prepared is readonly GraphQLError[] => Array.isArray(prepared);

/** What subscribers share one execution of: the same text, operation name and variables. */
function executionKey(operation: AdmittedOperation): string {
  return `${operation.operationName ?? ''}\u0000${JSON.stringify(operation.variables)}\u0000${operation.query}`;
}
