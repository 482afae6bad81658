import { getNamedType, isInputObjectType, isObjectType, type GraphQLNamedType, type GraphQLType } from 'graphql';

/**
 * The documented JSON keys that GraphQL cannot spell, and the names the schema uses for them
 * (CONVENTIONS.md). This is the only place that knows the mapping.
 */
const graphqlNameOf: Record<string, string> = {
  'this[]': 'this_',
  'System.IAsyncResult.AsyncWaitHandle': 'System_IAsyncResult_AsyncWaitHandle',
  'System.IAsyncResult.CompletedSynchronously': 'System_IAsyncResult_CompletedSynchronously',
};
const documentedNameOf: Record<string, string> = Object.fromEntries(Object.entries(graphqlNameOf).map(([doc, gql]) => [gql, doc]));

/** The documented key for a GraphQL field name. */
export function documentedKey(graphqlName: string): string {
  return documentedNameOf[graphqlName] ?? graphqlName;
}

/** Whether values of `type` contain, at any depth, a field whose documented key differs. */
export function needsKeyMapping(type: GraphQLType, seen = new Set<GraphQLNamedType>()): boolean {
  const named = getNamedType(type);
  if (seen.has(named) || !(isObjectType(named) || isInputObjectType(named))) return false;
  seen.add(named);
  // Each branch narrows `named`, so each getFields() is typed (on the union it is not).
  const fields: { name: string; type: GraphQLType }[] = isObjectType(named) ? Object.values(named.getFields()) : Object.values(named.getFields());
  return fields.some((field) => field.name in documentedNameOf || needsKeyMapping(field.type, seen));
}

/** Renames GraphQL field names back to the documented keys, at any depth. */
export function toDocumentedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toDocumentedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [documentedKey(key), toDocumentedKeys(inner)]));
}
