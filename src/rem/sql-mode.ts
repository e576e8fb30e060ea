/**
 * REM's SQL mode: a SELECT the guard accepted (sql-guard.ts), run read-only as the reader role over
 * the caller's views, its cost, time, rows and bytes capped.
 */
import type { Config } from '../config/config.js';
import type { AgentContext } from '../auth/agent-context.js';
import type { Database } from '../db/database.js';
import type { Watchdog } from '../db/pglite-thread.js';
import type { PrismaClient } from '../db/generated/client.js';
import { isSyntaxOrAccessRuleViolation, SqlState } from '../db/sql-state.js';
import { ForbiddenError, isAppError, LimitExceededError, QuerySyntaxError, ValidationError } from '../errors.js';
import type { SqlQuery } from './parser.js';
import { checkSqlQuery, REM_SQL_TABLES } from './sql-guard.js';

/**
 * Runs a checked SELECT in a READ ONLY transaction as rem_reader_custom, whose only readable
 * relations are the views of rem_sql_custom, scoped by per-transaction settings that the query
 * cannot change (the guard refuses set_config and SET). Planner cost, time, rows and bytes are
 * capped: PostgreSQL enforces the statement timeout; on PGlite, which cannot interrupt a statement,
 * `interruptAfter` stops the database and reopens it once the time is up.
 */
export async function runSqlQuery(
  deps: { prisma: PrismaClient; interruptAfter?: Database['interruptAfter'] },
  settings: Config['rem']['sql'],
  ctx: AgentContext,
  query: SqlQuery,
  offset = 0,
): Promise<{ rows: Record<string, unknown>[]; truncated: boolean }> {
  const { rowCap, maxCost, maxBytes, statementTimeoutMs, maxSeriesRows } = settings;
  await checkSqlQuery(query.sql, offset, { maxSeriesRows });
  // Each row as JSON text with the running total of bytes, so rows past the byte cap leave the
  // database as NULLs, not as the values themselves.
  const wrapped = `SELECT CASE WHEN rem_sql_bytes <= ${maxBytes} THEN rem_sql_row END AS row, rem_sql_bytes::float8 AS bytes
    FROM (SELECT rem_sql_row, sum(octet_length(rem_sql_row)) OVER (ROWS UNBOUNDED PRECEDING) AS rem_sql_bytes
          FROM (SELECT to_json(rem_sql_q)::text AS rem_sql_row FROM (\n${query.sql}\n) AS rem_sql_q LIMIT ${rowCap + 1}) AS rem_sql_rows) AS rem_sql_out`;
  const timeLimit = () => new LimitExceededError(`SQL query stopped: it ran longer than the ${statementTimeoutMs} ms SQL mode allows; add filters or a LIMIT`);
  let watchdog: Watchdog | undefined;
  const rows = await deps.prisma
    .$transaction(
      async (tx) => {
        watchdog = deps.interruptAfter?.(statementTimeoutMs, timeLimit);
        try {
          await tx.$executeRawUnsafe('SET TRANSACTION READ ONLY');
          await tx.$queryRawUnsafe(
            `SELECT set_config('statement_timeout', $1, true), set_config('search_path', 'rem_sql_custom', true),
                  set_config('standard_conforming_strings', 'on', true),
                  set_config('remgraph.tenant_id', $2, true), set_config('remgraph.user_id', $3, true)`,
            String(statementTimeoutMs),
            ctx.tenantId,
            ctx.userId ?? '',
          );
          await tx.$executeRawUnsafe('SET LOCAL ROLE "rem_reader_custom"');
          const plan = await tx.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>(`EXPLAIN (FORMAT JSON) ${wrapped}`);
          const cost = planCost(plan[0]?.['QUERY PLAN']);
          if (cost > maxCost) {
            throw new ForbiddenError(`SQL query refused: its estimated cost ${Math.round(cost)} exceeds the limit ${maxCost}; add filters or a LIMIT`);
          }
          return await tx.$queryRawUnsafe<{ row: string | null; bytes: number }[]>(wrapped);
        } finally {
          watchdog?.disarm();
        }
      },
      { timeout: statementTimeoutMs + 5000, maxWait: 10_000 },
    )
    .catch((error: unknown) => {
      // Prisma wraps what the stopped database answered; the watchdog knows what happened.
      throw watchdog?.fired ? timeLimit() : mapSqlError(error, offset, timeLimit);
    });
  const kept = rows.filter((r, i) => i < rowCap && r.row !== null && r.bytes <= maxBytes);
  const objects = kept.map((r) => JSON.parse(r.row!) as Record<string, unknown>);
  return { rows: objects, truncated: kept.length < rows.length };
}

function planCost(plan: unknown): number {
  const parsed = typeof plan === 'string' ? JSON.parse(plan) : plan;
  const cost = (parsed as { Plan?: { 'Total Cost'?: number } }[] | undefined)?.[0]?.Plan?.['Total Cost'];
  return typeof cost === 'number' ? cost : 0;
}

/** PostgreSQL error codes reported by either driver adapter, as our coded errors. */
function mapSqlError(error: unknown, offset: number, timeLimit: () => LimitExceededError): unknown {
  if (isAppError(error)) return error;
  const e = error as {
    code?: string;
    message?: string;
    meta?: { code?: string; message?: string; driverAdapterError?: { cause?: { originalCode?: string; originalMessage?: string; code?: string } } };
  };
  const cause = e.meta?.driverAdapterError?.cause;
  const code = cause?.originalCode ?? e.meta?.code ?? (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined);
  const message = cause?.originalMessage ?? e.meta?.message ?? e.message ?? 'SQL query failed';
  if (!code) return error;
  const tables = REM_SQL_TABLES.join(', ');
  if (code === SqlState.insufficientPrivilege) return new ForbiddenError(`SQL mode reads only the REM tables (${tables}): ${message}`);
  if (code === SqlState.readOnlySqlTransaction) return new ForbiddenError(`SQL mode is read-only: ${message}`);
  if (code === SqlState.queryCanceled) return timeLimit();
  if (code === SqlState.undefinedTable) return new QuerySyntaxError(`${message}; SQL mode can read ${tables}`, offset, [...REM_SQL_TABLES]);
  if (isSyntaxOrAccessRuleViolation(code)) return new QuerySyntaxError(`SQL error: ${message}`, offset, []);
  return new ValidationError(`SQL query failed: ${message}`, [{ path: ['query'], message }]);
}
