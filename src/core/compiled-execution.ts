import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';

export type CompiledOperation = (contextValue: object, variables: Record<string, unknown>) => Promise<ExecutionResult> | ExecutionResult;

/**
 * An operation compiled once with graphql-jit (in our benchmark several times cheaper to run than
 * graphql-js), or plain graphql-js execution where graphql-jit cannot compile it.
 */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string): CompiledOperation {
  const compiled = compileQuery(schema, document, operationName);
  if (isCompiledQuery(compiled)) return (contextValue, variables) => compiled.query(undefined, contextValue, variables);
  return (contextValue, variableValues) => execute({ schema, document, contextValue, variableValues, operationName });
}

/** Compiled operations by key, at most `limit` of them (the least recently used go first). */
export class CompiledOperationCache {
  private readonly entries = new Map<string, CompiledOperation>();

  constructor(private readonly limit: number) {}

  get(key: string, compile: () => CompiledOperation): CompiledOperation {
    let operation = this.entries.get(key);
    if (operation) {
      this.entries.delete(key); // re-insert: Map order is the recency order
    } else {
      operation = compile();
      if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, operation);
    return operation;
  }
}
