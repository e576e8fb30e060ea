/** The one statement that upserts rows of one kind: INSERT ... ON CONFLICT on the natural key. */
import type { Prepared } from './inputs.js';
import { TABLE_OF, type MemoryKind, type MemoryRow, type Tx } from './kinds.js';

type SqlType = 'text' | 'jsonb' | 'tags' | 'timestamptz' | 'uuid';

/** Writable model fields: their column and how a JSON value becomes that column's type. */
const FIELDS: Record<string, { column: string; type: SqlType }> = {
  name: { column: 'name', type: 'text' },
  summary: { column: 'summary', type: 'text' },
  content: { column: 'content', type: 'text' },
  tags: { column: 'tags', type: 'tags' },
  graphEdges: { column: 'graph_edges', type: 'jsonb' },
  metadata: { column: 'metadata', type: 'jsonb' },
  entityType: { column: 'entity_type', type: 'text' },
  uri: { column: 'uri', type: 'text' },
  extractedData: { column: 'extracted_data', type: 'jsonb' },
  category: { column: 'category', type: 'text' },
  momentType: { column: 'moment_type', type: 'text' },
  startsAt: { column: 'starts_at', type: 'timestamptz' },
  endsAt: { column: 'ends_at', type: 'timestamptz' },
  sessionId: { column: 'session_id', type: 'uuid' },
  sourceTurnId: { column: 'source_turn_id', type: 'uuid' },
  sourceJobId: { column: 'source_job_id', type: 'uuid' },
};

/** Every model field of each table, so that raw RETURNING rows have the shape Prisma would return. */
const MODEL_FIELDS: Record<MemoryKind, string[]> = {
  entity: ['name', 'entityType', 'uri', 'content', 'summary', 'extractedData', 'tags', 'graphEdges', 'metadata', 'sourceTurnId', 'sourceJobId'],
  resource: ['name', 'uri', 'content', 'summary', 'category', 'tags', 'graphEdges', 'metadata', 'sourceTurnId', 'sourceJobId'],
  moment: ['name', 'summary', 'content', 'momentType', 'startsAt', 'endsAt', 'sessionId', 'tags', 'graphEdges', 'metadata', 'sourceTurnId', 'sourceJobId'],
};

function returning(kind: MemoryKind): string {
  const fields = MODEL_FIELDS[kind].map((f) => `t."${FIELDS[f]!.column}"${FIELDS[f]!.type === 'uuid' ? '::text' : ''} AS "${f}"`);
  return [
    't."id"::text AS "id"',
    't."key"',
    ...fields,
    't."tenant_id" AS "tenantId"',
    't."user_id" AS "userId"',
    't."created_at" AS "createdAt"',
    't."updated_at" AS "updatedAt"',
  ].join(', ');
}

function fromJson(field: string): string {
  const { column, type } = FIELDS[field]!;
  return type === 'tags' ? `ARRAY(SELECT jsonb_array_elements_text(r."${column}"))` : `r."${column}"`;
}

/** The columns of the JSON records `r` that carry rows of one kind giving these fields (jsonb_to_recordset's column list). */
export function recordColumns(fields: string[]): string[] {
  return ['"key" text', '"user_id" text', ...fields.map((f) => `"${FIELDS[f]!.column}" ${FIELDS[f]!.type === 'tags' ? 'jsonb' : FIELDS[f]!.type}`)];
}

/** One row as a JSON record of `recordColumns(fields)`. */
export function toRecord(item: Prepared, fields: string[]): Record<string, unknown> {
  const record: Record<string, unknown> = { key: item.key, user_id: item.owner };
  for (const f of fields) record[FIELDS[f]!.column] = item.data[f];
  return record;
}

/**
 * INSERT ... ON CONFLICT of the records `r` (given by `from`) into one kind's table, for the
 * tenant `tenantParam`: conflicts on the natural key (tenant, owner, key) update only the given fields.
 */
export function upsertStatement(kind: MemoryKind, fields: string[], from: string, tenantParam: string, returningList: string): string {
  const columns = fields.map((f) => `"${FIELDS[f]!.column}"`);
  const updates = [...columns.map((c) => `${c} = EXCLUDED.${c}`), '"updated_at" = now()'];
  return `INSERT INTO "${TABLE_OF[kind]}" AS t ("key", "tenant_id", "user_id"${columns.map((c) => `, ${c}`).join('')})
     SELECT r."key", ${tenantParam}, r."user_id"${fields.map((f) => `, ${fromJson(f)}`).join('')}
     FROM ${from}
     ON CONFLICT ("tenant_id", COALESCE("user_id", ''), "key") DO UPDATE SET ${updates.join(', ')}
     RETURNING ${returningList}`;
}

/**
 * Upserts rows of one kind that give the same fields, in one statement: rows arrive as one JSON
 * array, conflicts on the natural key (tenant, owner, key) update only the given fields.
 */
export async function upsertRows(tx: Tx, tenantId: string, kind: MemoryKind, fields: string[], items: Prepared[]): Promise<MemoryRow[]> {
  return tx.$queryRawUnsafe<MemoryRow[]>(
    upsertStatement(kind, fields, `jsonb_to_recordset($1::jsonb) AS r(${recordColumns(fields).join(', ')})`, '$2', returning(kind)),
    JSON.stringify(items.map((item) => toRecord(item, fields))),
    tenantId,
  );
}
