import type { Plugin } from 'graphql-yoga';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createComplexityRule } from '@pothos/plugin-complexity';
import {
  GraphQLError,
  Kind,
  validate,
  type ASTVisitor,
  type DocumentNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { SecuritySettings } from '../config/security.js';

type Limits = SecuritySettings['operations'];

const CODE = 'LIMIT_EXCEEDED';

function limitError(message: string, limit: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: CODE, limit } });
}

/**
 * Bounds the work one operation can ask for, before any of it runs: depth, aliases, tokens and
 * directives (graphql-armor, on the document alone), list sizes and repeated mutations (on the
 * document), and cost (on the document with its variables: every list field multiplies the cost of
 * what it selects by 10, so nested lists such as graphEdges → target → graphEdges add up).
 */
export function operationLimitPlugins(limits: Limits): Plugin[] {
  // Created once: yoga caches validation results by rule identity.
  const rules = documentRules(limits);
  return [
    maxTokensPlugin({ ...armorOptions, n: limits.maxTokens }),
    {
      onValidate({ addValidationRule }) {
        for (const rule of rules) addValidationRule(rule);
      },
    },
    // Variables are not part of the validation cache key, so what depends on them is checked per run.
    {
      onExecute({ args, setResultAndStopExecution }) {
        const errors = variableLimitErrors(args.schema, args.document, args.variableValues ?? {}, args.operationName, limits);
        if (errors.length) setResultAndStopExecution({ errors });
      },
      onSubscribe({ args, setResultAndStopExecution }) {
        const errors = variableLimitErrors(args.schema, args.document, args.variableValues ?? {}, args.operationName, limits);
        if (errors.length) setResultAndStopExecution({ errors });
      },
    } as Plugin,
  ];
}

// armor reports its limits as "Syntax Error: …" without a code; give them ours.
const armorOptions = {
  exposeLimits: true,
  propagateOnRejection: true,
  onReject: [(_ctx: unknown, error: GraphQLError) => void Object.assign(error.extensions as object, { code: CODE })],
};

/** The limits a document can be checked against without its variables. */
export function documentRules(limits: Limits): ValidationRule[] {
  return [
    maxDepthRule({ ...armorOptions, n: limits.maxDepth, flattenFragments: true }),
    maxAliasesRule({ ...armorOptions, n: limits.maxAliases }),
    maxDirectivesRule({ ...armorOptions, n: limits.maxDirectives }),
    sameMutationRule(limits.maxSameMutation),
    listLiteralRule(limits.maxListArgument),
    noNulLiteralRule,
  ];
}

/** The checks that depend on the variables: NUL characters, list lengths and cost. */
export function variableLimitErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName: string | null | undefined,
  limits: Limits,
): readonly GraphQLError[] {
  if (hasNul(variables)) return [nulError()];
  const tooLong = longestList(variables);
  if (tooLong > limits.maxListArgument) {
    return [limitError(`A list in the variables has ${tooLong} items; at most ${limits.maxListArgument} are allowed (MAX_LIST_ARGUMENT)`, 'MAX_LIST_ARGUMENT')];
  }
  const key = `${limits.maxCost}\u0000${operationName ?? ''}\u0000${JSON.stringify(variables, costShape)}`;
  let passed = costChecks.get(document);
  if (!passed) costChecks.set(document, (passed = new Set()));
  if (passed.has(key)) return [];
  const errors = costErrors(schema, document, variables, operationName, limits);
  if (errors.length) return errors;
  if (passed.size >= COST_CHECKS_PER_DOCUMENT) passed.clear();
  passed.add(key);
  return errors;
}

/**
 * The cost checks passed, by document (yoga's parser cache hands out the same document for the
 * same text) and by what of the variables can change the cost: every value but strings (list
 * sizes, `first`, `@include(if:)`), so a chat message's text does not make each send a new entry.
 */
const costChecks = new WeakMap<DocumentNode, Set<string>>();
const COST_CHECKS_PER_DOCUMENT = 64;
const costShape = (_key: string, value: unknown) => (typeof value === 'string' ? '' : value);

function costErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName: string | null | undefined,
  limits: Limits,
): readonly GraphQLError[] {
  const complexity = createComplexityRule({
    context: {},
    variableValues: variables,
    operationName,
    validate: ({ complexity: cost }, report) => {
      if (cost > limits.maxCost) {
        report(limitError(`Operation cost ${cost} exceeds ${limits.maxCost} (MAX_QUERY_COST): ask for fewer nested lists`, 'MAX_QUERY_COST'));
      }
    },
  });
  // Other problems (unknown operation, bad variables) are execution's to report.
  return validate(schema, document, [complexity]).filter((error) => error.extensions.code === CODE);
}

// PostgreSQL text cannot hold NUL: refused here as bad input rather than failing in the database.
function nulError(): GraphQLError {
  return new GraphQLError('Strings must not contain NUL (\\u0000) characters', { extensions: { code: 'VALIDATION_FAILED' } });
}

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  return (Array.isArray(value) ? value : [...Object.keys(value), ...Object.values(value)]).some((item) => hasNul(item, depth + 1));
}

function longestList(value: unknown, depth = 0): number {
  if (depth > 32 || value === null || typeof value !== 'object') return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  let longest = Array.isArray(value) ? value.length : 0;
  for (const item of items) longest = Math.max(longest, longestList(item, depth + 1));
  return longest;
}

/** Caps list literals in the document (`nodes(ids: [...])`, tags, edges). */
function listLiteralRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    ListValue(node) {
      if (node.values.length > max) {
        context.reportError(limitError(`A list argument has ${node.values.length} items; at most ${max} are allowed (MAX_LIST_ARGUMENT)`, 'MAX_LIST_ARGUMENT'));
      }
    },
  });
}

const noNulLiteralRule: ValidationRule = (context) => ({
  StringValue(node) {
    if (node.value.includes('\u0000')) context.reportError(nulError());
  },
});

/** At most `max` runs of one mutation field per request: aliases must not multiply turns, writes or decisions. */
function sameMutationRule(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      if (node.operation !== 'mutation') return;
      const counts = new Map<string, number>();
      countRootFields(context, node.selectionSet, counts, new Set());
      for (const [field, count] of counts) {
        if (count > max) {
          context.reportError(
            limitError(`Mutation ${field} appears ${count} times in one request; at most ${max} are allowed (MAX_SAME_MUTATION)`, 'MAX_SAME_MUTATION'),
          );
        }
      }
    },
  });
}

function countRootFields(context: ValidationContext, selections: SelectionSetNode, counts: Map<string, number>, seen: Set<string>): void {
  for (const selection of selections.selections) {
    if (selection.kind === Kind.FIELD) counts.set(selection.name.value, (counts.get(selection.name.value) ?? 0) + 1);
    else if (selection.kind === Kind.INLINE_FRAGMENT) countRootFields(context, selection.selectionSet, counts, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment) countRootFields(context, fragment.selectionSet, counts, seen);
    }
  }
}
