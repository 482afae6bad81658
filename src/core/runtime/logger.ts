import { pino, type Logger } from 'pino';
import type { Config } from '../config.js';
import { currentTraceId, tracingEnabled } from './tracing.js';

/** Query parameters that carry secrets and must never reach a log line. */
const SECRET_QUERY_PARAMS = /([?&](?:masterkey|token)=)[^&]*/gi;

/** Structured JSON logs; credentials are never written (Authorization, cookies, secret query values). */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({
    level: config.LOG_LEVEL,
    // With tracing on, every line names the trace it belongs to.
    ...(tracingEnabled() ? { mixin: () => { const traceId = currentTraceId(); return traceId ? { trace_id: traceId } : {}; } } : {}),
    serializers: {
      req: (request: { method: string; url: string; ip?: string; headers?: Record<string, unknown> }) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
        userAgent: request.headers?.['user-agent'],
      }),
    },
  });
}

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[redacted]');
}
