import type { ServerResponse } from 'node:http';
import { isAppError, RateLimitedError, ValidationError, type AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { sendJson } from '../json-body.js';

const STATUS: Partial<Record<AppError['code'], number>> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SESSION_BUSY: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  LIMIT_EXCEEDED: 429,
  MODEL_ERROR: 502,
};

/** An OpenAI-shaped error body: `{ error: { message, type, param, code } }`, `code` being remgraph's stable code. */
export function openAIError(status: number, message: string, code: string, param: string | null = null) {
  const type = status === 401 ? 'authentication_error' : status === 403 ? 'permission_error' : status === 404 ? 'not_found_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param, code } };
}

/**
 * Expected failures keep their message and code; anything else is logged and masked. A quota's 429
 * says in Retry-After (whole seconds) when to try again, which the OpenAI SDKs wait for.
 */
export function sendOpenAIError(res: ServerResponse, error: unknown, logger: Logger): void {
  if (!isAppError(error)) {
    logger.error({ err: error }, 'unexpected error in the OpenAI-compatible API');
    return sendJson(res, 500, openAIError(500, 'Unexpected error', 'INTERNAL'));
  }
  const status = STATUS[error.code] ?? (error.httpStatus !== 200 ? error.httpStatus : 400);
  const param = error instanceof ValidationError && error.issues[0] ? error.issues[0].path.join('.') || null : null;
  const retryAfterMs = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
  const headers = retryAfterMs !== undefined ? { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } : undefined;
  sendJson(res, status, openAIError(status, error.message, error.code, param), headers);
}
