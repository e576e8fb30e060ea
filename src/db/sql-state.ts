/**
 * The PostgreSQL SQLSTATE of a failed query (e.g. `23503` for a foreign key violation), as Prisma's
 * driver adapters report it for both backends; undefined for failures that are not the database's.
 */
export function sqlStateOf(error: unknown): string | undefined {
  const cause = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta?.driverAdapterError?.cause;
  return typeof cause?.originalCode === 'string' ? cause.originalCode : undefined;
}
