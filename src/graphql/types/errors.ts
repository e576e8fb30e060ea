import {
  AlreadyDecidedError,
  type AppError,
  ERROR_CODES,
  ForbiddenError,
  ModelError,
  NotFoundError,
  PayloadTooLargeError,
  QuerySyntaxError,
  RateLimitedError,
  SessionBusyError,
  ValidationError,
  type FieldIssue,
} from '../../errors.js';
import { encodeGlobalID } from '../../http/global-ids.js';
import { builder } from '../builder.js';

/** Expected failures are part of the schema: mutation results are unions of success and these. */
const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'Stable machine-readable failure codes: of Error results, of `extensions.code` in GraphQL errors, and of turn and job errors.',
  values: ERROR_CODES,
});

const ErrorInterface = builder.interfaceRef<AppError>('Error').implement({
  description: 'An expected failure with a stable machine-readable code.',
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.field({ type: ErrorCodeEnum, resolve: (error) => error.code }),
  }),
});

const FieldIssueRef = builder.objectRef<FieldIssue>('FieldIssue').implement({
  fields: (t) => ({
    path: t.stringList({ resolve: (issue) => issue.path.map(String) }),
    message: t.exposeString('message'),
    line: t.exposeInt('line', { nullable: true }),
    column: t.exposeInt('column', { nullable: true }),
  }),
});

for (const [cls, name] of [
  [NotFoundError, 'NotFoundError'],
  [ForbiddenError, 'ForbiddenError'],
  [ModelError, 'ModelError'],
] as const) {
  builder.objectType(cls as new (message: string) => AppError, {
    name,
    interfaces: [ErrorInterface],
    isTypeOf: (value) => value instanceof cls,
  });
}
builder.objectType(RateLimitedError, {
  name: 'RateLimitedError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof RateLimitedError,
  fields: (t) => ({
    retryAfterMs: t.int({
      nullable: true,
      description: 'How long to wait before trying again, in milliseconds.',
      resolve: (error) => error.retryAfterMs ?? null,
    }),
  }),
});
builder.objectType(PayloadTooLargeError, {
  name: 'PayloadTooLargeError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof PayloadTooLargeError,
  fields: (t) => ({ limit: t.exposeInt('limit', { description: 'The limit in bytes.' }) }),
});
builder.objectType(ValidationError, {
  name: 'ValidationError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ValidationError,
  fields: (t) => ({ issues: t.field({ type: [FieldIssueRef], resolve: (error) => error.issues }) }),
});
builder.objectType(SessionBusyError, {
  name: 'SessionBusyError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof SessionBusyError,
  fields: (t) => ({ sessionId: t.id({ resolve: (error) => encodeGlobalID('Session', error.sessionId) }) }),
});
builder.objectType(AlreadyDecidedError, {
  name: 'AlreadyDecidedError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof AlreadyDecidedError,
  fields: (t) => ({ status: t.exposeString('status') }),
});
builder.objectType(QuerySyntaxError, {
  name: 'QuerySyntaxError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof QuerySyntaxError,
  fields: (t) => ({ position: t.exposeInt('position'), expected: t.exposeStringList('expected') }),
});
