/**
 * The import's write: a batch of rows of one kind, with their vectors, in one statement through the
 * direct SQL client (no Prisma client in between). On PostgreSQL the rows arrive by `COPY … FROM
 * STDIN` into a temporary table, the whole transaction sent as one script (two round trips, not
 * one per statement: on a busy machine each round trip waits for both processes to be scheduled);
 * on PGlite as one JSON parameter. Either way a batch's rows and vectors are all written or none.
 */
import pg from 'pg';
import { copyRow } from '../../db/copy-from-stdin.js';
import type { SqlClient } from '../../db/sql-client.js';
import type { EmbeddingProvider } from '../embeddings/provider.js';
import { vectorLiteral } from '../embeddings/provider.js';
import type { Prepared } from '../memory/inputs.js';
import { TABLE_OF, rowId, type MemoryKind } from '../memory/kinds.js';
import { recordColumns, toRecord, upsertStatement } from '../memory/upsert-rows.js';
import type { PlannedVector } from '../memory/vectors.js';

/** The batch's rows as the statement reads them (`r`): the given fields, then the planned vector. */
const STAGED = 'import_rows';

/**
 * The write of rows of one kind that give the same fields, with the vectors planned for them (a new
 * vector where one was computed, none where the row has no text, the stored one otherwise), made
 * ready to send: the rows are encoded now, while the previous batch is being written, and sent by
 * the function returned.
 */
export function batchWrite(
  sql: SqlClient,
  embedder: EmbeddingProvider,
  tenantId: string,
  kind: MemoryKind,
  fields: string[],
  items: Prepared[],
  planned: Map<string, PlannedVector>,
): () => Promise<void> {
  const columns = [...recordColumns(fields), '"h" text', '"e" text', '"untexted" boolean'];
  const records = items.map((item) => {
    const plan = planned.get(rowId(item.kind, item.owner, item.key));
    return { ...toRecord(item, fields), h: plan?.vector ? plan.hash : null, e: plan?.vector ? vectorLiteral(plan.vector) : null, untexted: !plan };
  });
  if (sql.copyIn) {
    const copyIn = sql.copyIn.bind(sql);
    const rows = records.map((record) => copyRow(Object.values(record)));
    const [tenant, model] = [tenantId, embedder.model].map((text) => pg.escapeLiteral(text));
    const script = [
      'BEGIN',
      `CREATE TEMPORARY TABLE "${STAGED}" (${columns.join(', ')}) ON COMMIT DROP`,
      `COPY "${STAGED}" FROM STDIN`,
      statement(kind, fields, `SELECT * FROM "${STAGED}"`, [tenant!, model!, `${Math.trunc(embedder.dimension)}`]),
      'COMMIT',
    ].join(';\n');
    return () => copyIn(script, rows);
  }
  const json = JSON.stringify(records);
  const text = statement(kind, fields, `SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${columns.join(', ')})`, ['$2', '$3', '$4']);
  return async () => void (await sql.query(text, [json, tenantId, embedder.model, embedder.dimension]));
}

/** The write of the rows `rows` selects, given the SQL of the tenant, the model and the dimension (parameters or literals). */
function statement(kind: MemoryKind, fields: string[], rows: string, [tenant, model, dimension]: string[]): string {
  const table = TABLE_OF[kind];
  const match = `r."key" = w."key" AND r."user_id" IS NOT DISTINCT FROM w."user_id"`;
  return `WITH r AS (${rows}),
     w AS (${upsertStatement(kind, fields, 'r', tenant!, 't."id", t."key", t."user_id"')}),
     v AS (
       INSERT INTO "embeddings" ("entity_type", "entity_id", "field", "model", "dimension", "content_hash", "embedding", "tenant_id", "user_id")
       SELECT '${table}', w."id", 'content', ${model}, ${dimension}::int, r."h", r."e"::vector, ${tenant}, w."user_id"
       FROM w JOIN r ON ${match} WHERE r."e" IS NOT NULL
       ON CONFLICT ("entity_type", "entity_id", "field", "model") DO UPDATE SET
         "dimension" = EXCLUDED."dimension", "content_hash" = EXCLUDED."content_hash", "embedding" = EXCLUDED."embedding",
         "tenant_id" = EXCLUDED."tenant_id", "user_id" = EXCLUDED."user_id", "created_at" = now()
       RETURNING 1
     ),
     d AS (
       DELETE FROM "embeddings" e USING w JOIN r ON ${match}
       WHERE r."untexted" AND e."entity_type" = '${table}' AND e."entity_id" = w."id" AND e."model" = ${model}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM v)::int + (SELECT count(*) FROM d)::int AS vectors`;
}
