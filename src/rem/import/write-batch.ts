/**
 * The import's write: a batch of rows of one kind, with their vectors, in one statement through the
 * direct SQL client (no Prisma client or interactive transaction in between). The statement is
 * atomic: a batch's rows and vectors are all written or none.
 */
import type { SqlClient } from '../../db/sql-client.js';
import type { EmbeddingProvider } from '../embeddings/provider.js';
import { vectorLiteral } from '../embeddings/provider.js';
import type { Prepared } from '../memory/inputs.js';
import { TABLE_OF, rowId, type MemoryKind } from '../memory/kinds.js';
import { recordColumns, toRecord, upsertStatement } from '../memory/upsert-rows.js';
import type { PlannedVector } from '../memory/vectors.js';

/**
 * Upserts rows of one kind that give the same fields, and stores the vectors planned for them:
 * a new vector where one was computed, none where the row has no text, the stored one otherwise.
 */
export async function writeBatch(
  sql: SqlClient,
  embedder: EmbeddingProvider,
  tenantId: string,
  kind: MemoryKind,
  fields: string[],
  items: Prepared[],
  planned: Map<string, PlannedVector>,
): Promise<void> {
  const table = TABLE_OF[kind];
  const records = items.map((item) => {
    const plan = planned.get(rowId(item.kind, item.owner, item.key));
    return { ...toRecord(item, fields), h: plan?.vector ? plan.hash : null, e: plan?.vector ? vectorLiteral(plan.vector) : null, untexted: !plan };
  });
  const match = `r."key" = w."key" AND r."user_id" IS NOT DISTINCT FROM w."user_id"`;
  await sql.query(
    `WITH r AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${[...recordColumns(fields), '"h" text', '"e" text', '"untexted" boolean'].join(', ')})),
     w AS (${upsertStatement(kind, fields, 'r', '$2', 't."id", t."key", t."user_id"')}),
     v AS (
       INSERT INTO "embeddings" ("entity_type", "entity_id", "field", "model", "dimension", "content_hash", "embedding", "tenant_id", "user_id")
       SELECT '${table}', w."id", 'content', $3, $4::int, r."h", r."e"::vector, $2, w."user_id"
       FROM w JOIN r ON ${match} WHERE r."e" IS NOT NULL
       ON CONFLICT ("entity_type", "entity_id", "field", "model") DO UPDATE SET
         "dimension" = EXCLUDED."dimension", "content_hash" = EXCLUDED."content_hash", "embedding" = EXCLUDED."embedding",
         "tenant_id" = EXCLUDED."tenant_id", "user_id" = EXCLUDED."user_id", "created_at" = now()
       RETURNING 1
     ),
     d AS (
       DELETE FROM "embeddings" e USING w JOIN r ON ${match}
       WHERE r."untexted" AND e."entity_type" = '${table}' AND e."entity_id" = w."id" AND e."model" = $3
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM v)::int + (SELECT count(*) FROM d)::int AS vectors`,
    [JSON.stringify(records), tenantId, embedder.model, embedder.dimension],
  );
}
