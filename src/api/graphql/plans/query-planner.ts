import { Injectable } from '@nestjs/common';
import { type FieldNode, isNonNullType, type OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { ReadPolicy } from '../../../auth/read-policy.js';
import { normalizeError } from '../../../common/errors/normalize-error.js';
import { Sql } from '../../../common/persistence/sql.js';
import { AppConfig } from '../../../config/app-config.js';
import { Declined, type PlannedRequest, type RootPlanner } from './plan-completion.js';
import { NoPlan, plainFields, type Variables } from './plan-walk.js';
import { PostPlanner } from './post-plan.js';
import { PlanTables } from './post-selection.js';
import { PostsPlanner } from './posts-plan.js';
import { UserPlanner } from './user-plan.js';

/** How many documents' plans (or their absence) are kept. */
const MAX_PLANS = 500;

/** A document's plan: its one root field (its node, response key, whether it may be null), planner and plan. */
interface Planned {
  root: FieldNode;
  key: string;
  nullable: boolean;
  planner: RootPlanner<unknown>;
  plan: unknown;
}

/**
 * What a planned document answers: its data, or the database's unavailability while its statement
 * ran — the error the root field's resolver would have met, answered at once (the resolvers would
 * wait for the database a second time) with the data graphql-js gives a failed root field.
 */
export type PlannedAnswer = { data: Record<string, unknown> } | { unavailable: unknown; root: FieldNode; data: Record<string, unknown> | null };

/**
 * Planned documents (issue 43): a query of ONE root field among `post(id:)`, `posts(first, after,
 * authorId, locale)` and `user(id:)` is planned on first sight (plan-walk.ts and each root's planner) and
 * its plan kept in an LRU by the document's hash and operation name; at each request the plan
 * reads the variables (a value the resolvers would refuse leaves that request to them) and sends
 * one statement. A document with anything the plans do not cover has no plan and runs as before.
 */
@Injectable()
export class QueryPlanner {
  /** GRAPHQL_PLANS; a test turns it off and on to compare planned and unplanned answers on one database. */
  enabled: boolean;
  private readonly plans = new LRUCache<string, Planned | false>({ max: MAX_PLANS });
  private readonly roots: Readonly<Record<string, RootPlanner<unknown>>>;

  constructor(db: Sql, readPolicy: ReadPolicy, config: AppConfig) {
    this.enabled = config.graphqlPlans === 'on';
    const translated = config.supportedLocales.length > 1;
    const tables = new PlanTables(db);
    this.roots = {
      post: new PostPlanner(db, tables, readPolicy, translated),
      posts: new PostsPlanner(db, tables, readPolicy, config),
      user: new UserPlanner(db, tables, readPolicy),
    };
  }

  /** The answer, or undefined when the document has no plan or this request cannot be answered by it. */
  async run(request: PlannedRequest): Promise<PlannedAnswer | undefined> {
    const key = `${request.queryHash}\u0000${request.operationName ?? ''}`;
    let planned = this.plans.get(key);
    if (planned === undefined) {
      planned = this.plan(request) ?? false;
      this.plans.set(key, planned);
    }
    if (planned === false) return undefined;
    try {
      return { data: { [planned.key]: await planned.planner.answer(planned.plan, request) } };
    } catch (error) {
      if (!(error instanceof Declined) && normalizeError(error).code === 'SERVICE_UNAVAILABLE') {
        return { unavailable: error, root: planned.root, data: planned.nullable ? { [planned.key]: null } : null };
      }
      // Declined, or the statement failed otherwise: the resolvers then answer as they do without
      // a plan, with their errors in the response.
      return undefined;
    }
  }

  private plan({ schema, operation }: PlannedRequest): Planned | null {
    try {
      if (!plannable(operation)) return null;
      const [root, ...others] = plainFields(operation.selectionSet);
      const planner = Object.hasOwn(this.roots, root.name.value) ? this.roots[root.name.value] : undefined;
      const field = schema.getQueryType()?.getFields()[root.name.value];
      if (others.length > 0 || !planner || !field) return null;
      const variables: Variables = new Map((operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition]));
      return { root, key: root.alias?.value ?? root.name.value, nullable: !isNonNullType(field.type), planner, plan: planner.plan(schema, root, variables) };
    } catch (error) {
      if (error instanceof NoPlan) return null;
      throw error;
    }
  }
}

function plannable(operation: OperationDefinitionNode): boolean {
  if (operation.operation !== 'query' || operation.directives?.length) return false;
  // A variable's default would have to be read as graphql-js coerces it: left to it.
  return (operation.variableDefinitions ?? []).every((definition) => definition.defaultValue === undefined && !definition.directives?.length);
}
