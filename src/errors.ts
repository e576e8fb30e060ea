/**
 * Expected failures, shared by every domain module. Each carries a stable `code` that the GraphQL
 * layer exposes unchanged; anything that is not an AppError is an internal error and is masked.
 */

/**
 * Every code a client can see (the GraphQL ErrorCode enum is built from it), with the HTTP status
 * of a response that fails with it: on the OpenAI-compatible and MCP endpoints, and for a GraphQL
 * request refused before execution.
 */
const HTTP_STATUS = {
  NOT_FOUND: 404,
  VALIDATION_FAILED: 400,
  SESSION_BUSY: 409,
  ALREADY_DECIDED: 409,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  RATE_LIMITED: 429,
  QUERY_SYNTAX: 400,
  MODEL_ERROR: 502,
  LIMIT_EXCEEDED: 429,
  // protocols (OpenAI-compatible endpoint, MCP, file ingestion)
  PAYLOAD_TOO_LARGE: 413,
  TOOL_FAILED: 502,
  // GraphQL's own refusals of a request (e.g. a variable of the wrong type)
  BAD_USER_INPUT: 400,
  // the end of a turn (its error event and stored error) or of a job
  MAX_ITERATIONS: 502,
  INTERRUPTED: 503,
  INTERNAL: 500,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof HTTP_STATUS;

export const ERROR_CODES = Object.keys(HTTP_STATUS) as ErrorCode[];

export function httpStatusOf(code: ErrorCode): number {
  return HTTP_STATUS[code];
}

const APP_ERROR = Symbol.for('remgraph.AppError');

export abstract class AppError extends Error {
  /** Marker that survives duplicated module instances, where instanceof would not. */
  readonly [APP_ERROR] = true;
  abstract readonly code: ErrorCode;
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
  constructor(
    readonly sessionId: string,
    readonly runningTurnId?: string,
  ) {
    super(`Session ${sessionId} already has a running turn`);
    this.name = 'SessionBusyError';
  }
}

export class AlreadyDecidedError extends AppError {
  readonly code = 'ALREADY_DECIDED';
  constructor(
    readonly approvalId: string,
    readonly status: string,
  ) {
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
  constructor(message: string) {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
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
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

// --- protocols: failures of the OpenAI-compatible endpoint, MCP and file ingestion ---

/** A request body (or an uploaded file) is larger than the configured limit. */
export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(
    readonly limit: number,
    what = 'Request body',
  ) {
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
