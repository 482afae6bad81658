import { buildOperationNodeForField } from '@graphql-tools/utils';
import { getNullableType, isInputObjectType, Kind, OperationTypeNode, type DocumentNode, type GraphQLArgument, type GraphQLField, type GraphQLSchema } from 'graphql';
import { createSofa } from 'sofa-api';
import { compileOperation, type CompiledOperation } from '../../core/requests/compiled-execution.js';
import { fieldAccess, type FieldAccess } from '../../core/requests/graphql-policies.js';
import { documentedQueryNames } from '../contract.js';
import { needsKeyMapping } from '../documented-keys.js';
import type { RouteRow } from '../route-table.js';

/*
 * The route table compiled against the schema: each row's path segments, the GraphQL field and
 * arguments its path, query string and body feed, who may call it, and the operation that runs it.
 */

/** A path segment: literal text, or a documented `{param}` feeding the GraphQL argument `arg`. */
export type Segment = { literal: string } | { param: string; arg: string; optional: boolean };

export interface CompiledRoute {
  row: RouteRow;
  segments: Segment[];
  literalCount: number;
  operationType: 'query' | 'mutation';
  fieldName: string;
  field: GraphQLField<unknown, unknown>;
  /** Lower-cased documented query name (or argument name) → argument. */
  queryArgs: Map<string, { documented: string; arg: GraphQLArgument }>;
  bodyArg: GraphQLArgument | null;
  /** The argument the row's `queryModel` names (fields from the query string), if any. */
  queryModelArg: GraphQLArgument | null;
  mapsKeys: boolean;
  /** Who may call the field (its `@Authorized` decorator): checked before the request is read. */
  access: FieldAccess;
  /** Runs sofa-api's operation for the field, compiled once at start. */
  run: CompiledOperation;
}

/** Builds each row against the schema; a row naming a missing field or argument fails at start. */
export function compileRoutes(schema: GraphQLSchema, rows: RouteRow[]): CompiledRoute[] {
  const sofa = createSofa({ basePath: '/api', schema });
  const documentedQuery = documentedQueryNames();
  const compiled = rows.map((row) => {
    const [typeName, fieldName] = row.field.split('.') as ['Query' | 'Mutation', string];
    const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = type?.getFields()[fieldName];
    if (!field) throw new Error(`Route ${row.method} ${row.path}: no GraphQL field ${row.field}`);
    // Documented names (`vendorid`, `auditid`) meet camelCase arguments (`vendorId`, `auditId`)
    // case-insensitively; the row's `query` renames the others (`this[]` → `text`).
    const renames = new Map(Object.entries(row.query ?? {}).map(([documented, arg]) => [documented.toLowerCase(), arg]));
    const argFor = (documented: string) => {
      const wanted = (renames.get(documented.toLowerCase()) ?? documented).toLowerCase();
      return field.args.find((arg) => arg.name.toLowerCase() === wanted);
    };
    const segments: Segment[] = row.path.split('/').filter(Boolean).map((part) => {
      const param = /^\{([^}=]+)(=null)?\}$/.exec(part);
      if (!param) return { literal: part.toLowerCase() };
      const arg = argFor(param[1]);
      if (!arg) throw new Error(`Route ${row.path}: ${row.field} has no argument for {${param[1]}}`);
      return { param: param[1], arg: arg.name, optional: Boolean(param[2]) };
    });
    const bodyArg = row.body ? field.args.find((arg) => arg.name === row.body) ?? null : null;
    if (row.body && !bodyArg) throw new Error(`Route ${row.path}: ${row.field} has no body argument ${row.body}`);
    const queryModelArg = row.queryModel ? field.args.find((arg) => arg.name === row.queryModel) ?? null : null;
    if (row.queryModel && !(queryModelArg && isInputObjectType(getNullableType(queryModelArg.type)))) throw new Error(`Route ${row.path}: ${row.field} has no input argument ${row.queryModel}`);
    // An optional path parameter (`{contactid=null}`) may come as a query parameter too; the path wins.
    const taken = new Set([...segments.flatMap((segment) => ('arg' in segment && !segment.optional ? [segment.arg] : [])), bodyArg?.name, queryModelArg?.name, ...Object.keys(row.args ?? {})]);
    const documentedNames = [...Object.keys(row.query ?? {}), ...(documentedQuery.get(`${row.method} ${row.path}`) ?? [])];
    const queryArgs = new Map(field.args
      .filter((arg) => !taken.has(arg.name))
      .map((arg) => {
        const documented = documentedNames.find((name) => argFor(name) === arg) ?? arg.name;
        return [documented.toLowerCase(), { documented, arg }] as const;
      }));
    const operationType = typeName === 'Query' ? 'query' as const : 'mutation' as const;
    return {
      row, segments, field, fieldName, bodyArg, queryModelArg, queryArgs, operationType,
      access: fieldAccess(operationType, fieldName),
      run: compiledOnFirstUse(() => compileOperation(schema, sofaOperation(sofa, operationType, fieldName)).run),
      literalCount: segments.filter((segment) => 'literal' in segment).length,
      mapsKeys: needsKeyMapping(field.type),
    };
  });
  // Literal routes win over parameter routes (/vendors/search before /vendors/{vendorid}).
  return compiled.sort((a, b) => b.literalCount - a.literalCount);
}

/**
 * An operation compiled when its route is first called, not at start: graphql-jit's code for all
 * 247 operations held about 5 MB of generated source alone, for routes most processes never serve.
 */
function compiledOnFirstUse(compile: () => CompiledOperation): CompiledOperation {
  let compiled: CompiledOperation | undefined;
  return (contextValue, variables) => (compiled ??= compile())(contextValue, variables);
}

/** The operation sofa-api makes for a root field: the field with all its output fields selected. */
function sofaOperation(sofa: ReturnType<typeof createSofa>, kind: 'query' | 'mutation', field: string): DocumentNode {
  const operation = buildOperationNodeForField({
    kind: kind === 'query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION, schema: sofa.schema, field, models: sofa.models, ignore: sofa.ignore, circularReferenceDepth: sofa.depthLimit,
  });
  return { kind: Kind.DOCUMENT, definitions: [operation] };
}
