import { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError } from 'graphql-yoga';
import { isAppError, ValidationError, type AppError } from '../errors.js';
import type { Logger } from '../logger.js';

/** The GraphQL error a client sees for an expected failure: message plus a stable code. */
export function toGraphQLError(error: AppError, from?: GraphQLError): GraphQLError {
  return createGraphQLError(error.message, {
    nodes: from?.nodes,
    source: from?.source,
    positions: from?.positions,
    path: from?.path,
    extensions: {
      code: error.code,
      ...(error instanceof ValidationError ? { issues: error.issues } : {}),
      ...(error.httpStatus !== 200 ? { http: { status: error.httpStatus } } : {}),
    },
  });
}

/**
 * Keeps expected failures (AppError) and GraphQL's own request errors readable, and hides
 * everything else behind a generic message with the real error in the log.
 */
export function createMaskError(logger: Logger) {
  return (error: unknown, message: string, isDev?: boolean): Error => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (isAppError(original)) return toGraphQLError(original, error instanceof GraphQLError ? error : undefined);
    if (original instanceof GraphQLError && isAppError(original.originalError)) {
      return toGraphQLError(original.originalError, original);
    }
    if (error instanceof GraphQLError && !error.originalError) return error;
    logger.error({ err: original }, 'unexpected error while executing an operation');
    return yogaMaskError(error, message, isDev);
  };
}
