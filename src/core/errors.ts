import { GraphQLError } from 'graphql';

/** One invalid input, named by its documented field or parameter. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The typed failures a service may raise. Each knows its HTTP status and GraphQL code; the
 * GraphQL layer puts both in `extensions`, and the REST layer turns them into problem+json.
 */
export class ApiError extends GraphQLError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: FieldProblem[] = [],
    headers?: Record<string, string>,
  ) {
    super(message, {
      extensions: {
        code,
        // Apollo reads the status and headers from here; it needs the headers as a Map (sofa's
        // type declaration says a record, but our REST layer reads them through headersOf).
        http: { status, ...(headers ? { headers: new Map(Object.entries(headers)) as unknown as Record<string, string> } : {}) },
        ...(problems.length ? { errors: problems } : {}),
      },
    });
  }
}

export class BadInput extends ApiError {
  constructor(problems: FieldProblem[] | string, message = 'The request is not valid.') {
    const list = typeof problems === 'string' ? [] : problems;
    super(400, 'BAD_USER_INPUT', typeof problems === 'string' ? problems : message, list);
  }
  static field(field: string, message: string): BadInput {
    return new BadInput([{ field, message }], `${field}: ${message}`);
  }
}

export class Unauthenticated extends ApiError {
  constructor(message = 'A valid credential is required.') {
    super(401, 'UNAUTHENTICATED', message, [], { 'WWW-Authenticate': 'Bearer' });
  }
}

export class Forbidden extends ApiError {
  constructor(message = 'Your role does not allow this operation.') {
    super(403, 'FORBIDDEN', message);
  }
}

export class NotFound extends ApiError {
  constructor(what = 'The record') {
    super(404, 'NOT_FOUND', `${what} was not found.`);
  }
}

export class Conflict extends ApiError {
  constructor(message: string, problems: FieldProblem[] = []) {
    super(409, 'CONFLICT', message, problems);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(message = 'The request body is too large.') {
    super(413, 'PAYLOAD_TOO_LARGE', message);
  }
}

export class TooManyRequests extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(429, 'TOO_MANY_REQUESTS', 'Too many requests; try again later.', [], { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class ServiceUnavailable extends ApiError {
  constructor(message = 'The service is temporarily unavailable.') {
    super(503, 'SERVICE_UNAVAILABLE', message, [], { 'Retry-After': '5' });
  }
}

/** The stale-version conflict every AuditId check raises. */
export function staleAuditId(): Conflict {
  return new Conflict('The record was changed by someone else since it was read (stale AuditId).', [
    { field: 'AuditId', message: 'does not match the current version' },
  ]);
}
