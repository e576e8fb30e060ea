import type { PrismaClient } from '../../src/db/generated/client.js';

/** What one execution of a statement read, from its EXPLAIN (ANALYZE, BUFFERS) plan. */
export interface StatementReads {
  /** Rows every scan produced or filtered out (times its loops): what the statement had to look at. */
  rowsRead: number;
  /** The same rows by the table scanned. */
  rowsByTable: Record<string, number>;
  /** Shared buffers the whole plan hit or read. */
  buffers: number;
  /** The plan's nodes, one per line, indented by depth: what a failure prints. */
  shape: string;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

class RolledBack extends Error {}

/**
 * Runs `text` under EXPLAIN (ANALYZE, BUFFERS) in a transaction that is rolled back, so a write
 * leaves nothing behind and the statement can still run for real afterwards. `settings` are set
 * for that transaction only, as a SQL function's own SET clauses are for its statements.
 */
export async function explainAnalyzed(
  prisma: PrismaClient,
  text: string,
  params: readonly unknown[],
  settings: Record<string, string> = {},
): Promise<StatementReads> {
  let plan: PlanNode | undefined;
  await prisma
    .$transaction(async (tx) => {
      for (const [name, value] of Object.entries(settings)) await tx.$executeRawUnsafe(`SELECT set_config($1, $2, true)`, name, value);
      const [row] = await tx.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, ...params);
      const json = row!['QUERY PLAN'];
      plan = (typeof json === 'string' ? JSON.parse(json) : json)[0].Plan as PlanNode;
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  const lines: string[] = [];
  let rowsRead = 0;
  const rowsByTable: Record<string, number> = {};
  const walk = (node: PlanNode, depth: number) => {
    const loops = node['Actual Loops'] ?? 1;
    // A Bitmap Index Scan's rows are the ones the Bitmap Heap Scan above it reads (and counts).
    if (node['Node Type'].includes('Scan') && node['Node Type'] !== 'Bitmap Index Scan') {
      const rows = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * loops;
      rowsRead += rows;
      const table = node['Relation Name'] ?? node['Node Type'];
      rowsByTable[table] = (rowsByTable[table] ?? 0) + rows;
    }
    const on = node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
    const using = node['Index Name'] ? ` using ${node['Index Name']}` : '';
    lines.push(
      `${'  '.repeat(depth)}${node['Node Type']}${on}${using} (rows ${node['Actual Rows']} × ${loops}, buffers ${(node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0)})`,
    );
    for (const child of node.Plans ?? []) walk(child, depth + 1);
  };
  walk(plan!, 0);
  return { rowsRead, rowsByTable, buffers: (plan!['Shared Hit Blocks'] ?? 0) + (plan!['Shared Read Blocks'] ?? 0), shape: lines.join('\n') };
}
