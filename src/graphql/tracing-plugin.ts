import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { inSpan, isTracing } from '../telemetry/tracing.js';

/**
 * Executes each query and mutation inside a `graphql.<type> <name>` span, so the work it starts
 * (a turn launched by sendMessage, REM queries) nests under it. Subscriptions are long-lived
 * streams, not operations with a duration, and are left out. While tracing is off it does nothing
 * (not even finding the operation), so it costs a request nothing.
 */
export function useOperationSpans(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!isTracing()) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      const name = operation.name?.value ?? 'anonymous';
      const attributes = { 'graphql.operation.type': operation.operation, 'graphql.operation.name': name };
      setExecuteFn((execArgs) =>
        inSpan(`graphql.${operation.operation} ${name}`, { attributes }, async (span) => {
          const result = await executeFn(execArgs);
          if ('errors' in result && result.errors?.length) span.setAttribute('graphql.errors', result.errors.length);
          return result;
        }),
      );
    },
  };
}
