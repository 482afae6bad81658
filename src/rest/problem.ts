import { STATUS_CODES } from 'node:http';
import type { ApiError, FieldProblem } from '../core/errors.js';
import { traceIdField } from '../core/runtime/tracing.js';

/** An RFC 9457 problem document. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldProblem[];
  instance?: string;
  /** The OpenTelemetry trace of the request, when tracing is on: what an operator looks up. */
  traceId?: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function problemOf(error: ApiError, instance?: string): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(error.problems.length ? { errors: error.problems } : {}),
    ...(instance ? { instance } : {}),
    ...traceIdField(),
  };
}

/** Headers an error asks for (WWW-Authenticate, Retry-After). */
export function headersOf(error: ApiError): Record<string, string> {
  const http = error.extensions.http as { headers?: Map<string, string> } | undefined;
  return Object.fromEntries(http?.headers ?? []);
}
