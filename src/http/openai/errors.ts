import type { ServerResponse } from 'node:http';
import { httpStatusOf, isAppError, RateLimitedError, ValidationError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { sendJson } from '../json-body.js';

/** An OpenAI-shaped error body: `{ error: { message, type, param, code } }`, `code` being remgraph's stable code; `type` follows the status unless given. */
export function openAIError(status: number, message: string, code: string, param: string | null = null, type = typeOf(status)) {
  return { error: { message, type, param, code } };
}

function typeOf(status: number): string {
  return status === 401
    ? 'authentication_error'
    : status === 403
      ? 'permission_error'
      : status === 404
        ? 'not_found_error'
        : status === 429
          ? 'rate_limit_error'
          : status >= 500
            ? 'server_error'
            : 'invalid_request_error';
}

/**
 * Expected failures keep their message and code; anything else is logged and masked. A quota's 429
 * says in Retry-After (whole seconds) when to try again, which the OpenAI SDKs wait for.
 */
export function sendOpenAIError(res: ServerResponse, error: unknown, logger: Logger): void {
  if (!isAppError(error)) {
    logger.error({ err: error }, 'unexpected error in the OpenAI-compatible API');
    const status = httpStatusOf('INTERNAL');
    return sendJson(res, status, openAIError(status, 'Unexpected error', 'INTERNAL'));
  }
  const status = httpStatusOf(error.code);
  const param = error instanceof ValidationError && error.issues[0] ? error.issues[0].path.join('.') || null : null;
  const retryAfterMs = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
  const headers = retryAfterMs !== undefined ? { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } : undefined;
  sendJson(res, status, openAIError(status, error.message, error.code, param), headers);
}
