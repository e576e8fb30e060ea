import type { SqlClient } from './sql-client.js';

/**
 * Moves every GIN index's pending list (rows added since the last flush, with `fastupdate` on, the
 * default) into the index proper. Every search through the index scans its whole pending list, so
 * after a bulk import one FUZZY call read 304 buffers instead of 32 (issue 41). PostgreSQL's
 * autovacuum flushes the lists in time; PGlite has none, so its lists grow until they pass
 * `gin_pending_list_limit` (4 MB). Cheap when the lists are empty. Only the owner may flush an
 * index: one owned by another role (a database set up by an administrator) is left to autovacuum.
 */
export async function flushGinPendingLists(sql: SqlClient): Promise<void> {
  await sql.query(
    `SELECT gin_clean_pending_list(c.oid) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
     WHERE a.amname = 'gin' AND c.relkind = 'i' AND c.relnamespace = current_schema()::regnamespace
       AND pg_has_role(c.relowner, 'MEMBER')`,
  );
}
