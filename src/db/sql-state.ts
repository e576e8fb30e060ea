/** The PostgreSQL SQLSTATEs remgraph reacts to. */
export const SqlState = {
  foreignKeyViolation: '23503',
  uniqueViolation: '23505',
  readOnlySqlTransaction: '25006',
  invalidSqlStatementName: '26000',
  /** Also what a prepared statement answers once a schema change altered its result type. */
  featureNotSupported: '0A000',
  insufficientPrivilege: '42501',
  undefinedTable: '42P01',
  queryCanceled: '57014',
} as const;

/**
 * Classes whose failures may pass on a retry: connection exceptions, transaction rollbacks
 * (serialization failures, deadlocks), insufficient resources, operator intervention, system errors.
 */
const TRANSIENT_CLASSES = ['08', '40', '53', '57', '58'];

/**
 * The PostgreSQL SQLSTATE of a failed query (e.g. `23503` for a foreign key violation), as Prisma's
 * driver adapters report it for both backends, or as the drivers themselves do for a direct
 * statement (sql-client.ts: a DatabaseError with a severity and a code); undefined for failures
 * that are not the database's.
 */
export function sqlStateOf(error: unknown): string | undefined {
  const cause = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta?.driverAdapterError?.cause;
  if (typeof cause?.originalCode === 'string') return cause.originalCode;
  const direct = error as { severity?: unknown; code?: unknown } | null;
  return typeof direct?.severity === 'string' && typeof direct.code === 'string' ? direct.code : undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  return sqlStateOf(error) === SqlState.uniqueViolation;
}

export function isForeignKeyViolation(error: unknown): boolean {
  return sqlStateOf(error) === SqlState.foreignKeyViolation;
}

export function isTransientSqlState(state: string): boolean {
  return TRANSIENT_CLASSES.includes(state.slice(0, 2));
}

/** Class 42: the statement's syntax or its access rules (undefined table, no privilege, …). */
export function isSyntaxOrAccessRuleViolation(state: string): boolean {
  return state.startsWith('42');
}
