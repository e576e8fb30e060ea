/**
 * Expected failures, shared by every domain module. Each carries a stable `code` that the GraphQL
 * layer exposes unchanged; anything that is not an AppError is an internal error and is masked.
 */
export type ErrorCode =
  | 'NOT_FOUND'
  | 'VALIDATION_FAILED'
  | 'SESSION_BUSY'
  | 'ALREADY_DECIDED'
  | 'FORBIDDEN'
  | 'UNAUTHENTICATED'
  | 'RATE_LIMITED'
  | 'QUERY_SYNTAX'
  | 'MODEL_ERROR'
  | 'LIMIT_EXCEEDED'
  // protocols (OpenAI-compatible endpoint, MCP, file ingestion)
  | 'PAYLOAD_TOO_LARGE'
  | 'TOOL_FAILED';

const APP_ERROR = Symbol.for('remgraph.AppError');

export abstract class AppError extends Error {
  /** Marker that survives duplicated module instances, where instanceof would not. */
  readonly [APP_ERROR] = true;
  abstract readonly code: ErrorCode;
  /** HTTP status for failures that happen before GraphQL execution (e.g. authentication). */
  readonly httpStatus: number = 200;
}

export function isAppError(error: unknown): error is AppError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[APP_ERROR] === true;
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
  constructor(what: string, id?: string) {
    super(id === undefined ? `${what} not found` : `${what} ${JSON.stringify(id)} not found`);
    this.name = 'NotFoundError';
  }
}

export interface FieldIssue {
  /** Path of the offending field within the input, e.g. ["input", "name"] or ["tools", 0, "name"]. */
  path: (string | number)[];
  message: string;
  /** 1-based position in a source document (YAML), when the input was one. */
  line?: number;
  column?: number;
}

export class ValidationError extends AppError {
  readonly code = 'VALIDATION_FAILED';
  constructor(
    message: string,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
    this.name = 'ValidationError';
  }
}

export class SessionBusyError extends AppError {
  readonly code = 'SESSION_BUSY';
  constructor(readonly sessionId: string, readonly runningTurnId?: string) {
    super(`Session ${sessionId} already has a running turn`);
    this.name = 'SessionBusyError';
  }
}

export class AlreadyDecidedError extends AppError {
  readonly code = 'ALREADY_DECIDED';
  constructor(readonly approvalId: string, readonly status: string) {
    super(`Approval ${approvalId} was already decided (${status})`);
    this.name = 'AlreadyDecidedError';
  }
}

export class ForbiddenError extends AppError {
  readonly code = 'FORBIDDEN';
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenError';
  }
}

export class UnauthenticatedError extends AppError {
  readonly code = 'UNAUTHENTICATED';
  override readonly httpStatus = 401;
  constructor(message: string) {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message);
    this.name = 'RateLimitedError';
  }
}

/** A configured limit stopped the work (delegation depth, child turns, tool calls per response). */
export class LimitExceededError extends AppError {
  readonly code = 'LIMIT_EXCEEDED';
  constructor(message: string) {
    super(message);
    this.name = 'LimitExceededError';
  }
}

export class QuerySyntaxError extends AppError {
  readonly code = 'QUERY_SYNTAX';
  constructor(
    message: string,
    /** 0-based offset into the query text. */
    readonly position: number,
    readonly expected: string[] = [],
  ) {
    super(message);
    this.name = 'QuerySyntaxError';
  }
}

export class ModelError extends AppError {
  readonly code = 'MODEL_ERROR';
  constructor(message: string, readonly status?: number, readonly retryable = false) {
    super(message);
    this.name = 'ModelError';
  }
}

// --- protocols: failures of the OpenAI-compatible endpoint, MCP and file ingestion ---

/** A request body (or an uploaded file) is larger than the configured limit. */
export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  override readonly httpStatus = 413;
  constructor(readonly limit: number, what = 'Request body') {
    super(`${what} exceeds ${limit} bytes`);
    this.name = 'PayloadTooLargeError';
  }
}

/** A tool of an MCP server failed, timed out or could not be reached; the model gets the message as the tool's error. */
export class ToolFailedError extends AppError {
  readonly code = 'TOOL_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'ToolFailedError';
  }
}
