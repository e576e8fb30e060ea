import type { PrismaClient } from '../db/generated/client.js';

/** Tables bulk memory writes touch; kv_store follows the memory tables by trigger. */
export type StatsTable = 'entities' | 'resources' | 'moments' | 'embeddings' | 'kv_store';

/** The share of a table's rows (as of its last ANALYZE) that must change before the next one: autovacuum's default. */
const SCALE = 0.1;

/**
 * Keeps the planner's statistics current after bulk memory writes. PGlite has no autovacuum, so a
 * table filled by `ingest` or `reembed` would keep the estimates of an empty table (reltuples -1),
 * and LOOKUP/SEARCH/TRAVERSE plans chosen on them degrade as it grows. Counts rows written per
 * table in this process and runs ANALYZE on a table once they reach max(threshold, 10% of the
 * rows it had at its last ANALYZE by this process), the rule autovacuum applies on PostgreSQL, where
 * the extra ANALYZE is merely early. Runs after the write has committed, before the write returns.
 */
export class TableStats {
  private readonly written = new Map<StatsTable, number>();
  private readonly due = new Map<StatsTable, number>();
  private readonly running = new Map<StatsTable, Promise<void>>();

  constructor(
    private readonly prisma: PrismaClient,
    /** REM_ANALYZE_AFTER_ROWS; 0 turns it off. */
    private readonly threshold: number,
    private readonly onError: (error: unknown, table: StatsTable) => void = () => {},
  ) {}

  /** Records rows written to tables and analyzes the ones past their threshold. */
  async wrote(rows: Partial<Record<StatsTable, number>>): Promise<void> {
    if (this.threshold <= 0) return;
    const ready: StatsTable[] = [];
    for (const [table, count] of Object.entries(rows) as [StatsTable, number][]) {
      if (!count) continue;
      const total = (this.written.get(table) ?? 0) + count;
      this.written.set(table, total);
      if (total >= (this.due.get(table) ?? this.threshold) && !this.running.has(table)) ready.push(table);
    }
    await Promise.all(ready.map((table) => this.analyze(table)));
  }

  private analyze(table: StatsTable): Promise<void> {
    this.written.set(table, 0);
    const run = (async () => {
      try {
        await this.prisma.$executeRawUnsafe(`ANALYZE "${table}"`);
        const [row] = await this.prisma.$queryRawUnsafe<{ reltuples: number }[]>(
          `SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = to_regclass($1)`,
          table,
        );
        this.due.set(table, Math.max(this.threshold, Math.round((row?.reltuples ?? 0) * SCALE)));
      } catch (error) {
        this.onError(error, table);
      } finally {
        this.running.delete(table);
      }
    })();
    this.running.set(table, run);
    return run;
  }
}
