import { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type Plugin } from 'graphql-yoga';
import { httpStatusOf, isAppError, QuerySyntaxError, RateLimitedError, ValidationError, type AppError } from '../errors.js';
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
      ...(error instanceof QuerySyntaxError ? { position: error.position, expected: error.expected } : {}),
      ...(error instanceof RateLimitedError && error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      // Outside any field (authentication, before execution) the error fails the whole request, so
      // it sets the response's status; a field's error leaves it at 200, beside the other fields.
      ...(from?.path ? {} : { http: { status: httpStatusOf(error.code) } }),
    },
  });
}

/**
 * Keeps expected failures (AppError) and GraphQL's own request errors readable, and hides
 * everything else behind a generic message with the real error in the log.
 */
export function createMaskError(logger: Logger) {
  return (error: unknown, message: string): Error => {
    const appError = findAppError(error);
    if (appError) return toGraphQLError(appError, isGraphQLError(error) ? error : undefined);
    // GraphQL's own request errors (syntax, validation, variables) carry no original error, or,
    // for a variable value its type refuses, the type's error: the client's mistake, not ours.
    if (isGraphQLError(error) && !error.originalError) return error;
    if (isGraphQLError(error) && !error.path && isGraphQLError(error.originalError)) {
      logger.info({ clientError: error.message }, 'refused a request: invalid variable value');
      return error;
    }
    logger.error({ err: isGraphQLError(error) ? error.originalError : error }, 'unexpected error while executing an operation');
    return yogaMaskError(error, message, false);
  };
}

// Resolver errors arrive wrapped in one or more GraphQLErrors (possibly from another copy of the
// graphql module), so the chain is walked by shape rather than by instanceof.
function findAppError(error: unknown): AppError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (isAppError(current)) return current;
    current = (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}

function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof GraphQLError || (error instanceof Error && error.name === 'GraphQLError');
}

/**
 * Gives a code to the request errors yoga answers without one (variables of the wrong type, with
 * HTTP 400), so that every failure a client sees carries `extensions.code`.
 */
export function useErrorCodes(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.some((e) => !e.extensions?.code)) return;
      setResult({
        ...result,
        errors: result.errors.map((e) =>
          e.extensions?.code
            ? e
            : createGraphQLError(e.message, { nodes: e.nodes, positions: e.positions, path: e.path, extensions: { ...e.extensions, code: 'BAD_USER_INPUT' } }),
        ),
      });
    },
  };
}
