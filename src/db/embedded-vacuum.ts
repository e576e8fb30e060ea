import type { SqlClient } from './sql-client.js';

/**
 * PGlite runs no autovacuum, so the index entries of rows a table deletes stay until a VACUUM.
 * Every turn's start records a quota start and prunes its caller's starts older than a minute,
 * finding the first to keep by reading the caller's entries from the oldest: unvacuumed, that read
 * steps over every start ever pruned (57 index pages per start after 20,000 turns of one user),
 * and each turn costs more than the one before. The table holds about a minute of starts, so
 * vacuuming it in the maintenance sweep is quick.
 */
export function vacuumEmbedded(sql: SqlClient): Promise<unknown> {
  return sql.query('VACUUM quota_starts');
}
