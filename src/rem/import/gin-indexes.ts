/**
 * The GIN indexes of memory rows (tags, and the trigram index of kv_store's keys that FUZZY uses)
 * around a large import: each row written while they exist adds its tags and trigrams to them one
 * by one, which costs the load more than one build after it. Meanwhile tag filters and FUZZY scan
 * the rows (slower, still correct).
 */
import type { PrismaClient } from '../../db/generated/client.js';

/** Each index's definition, exactly as the init migration creates it. */
const DEFINITIONS: Record<string, string> = {
  entities_tags_idx: 'ON "entities" USING GIN ("tags")',
  resources_tags_idx: 'ON "resources" USING GIN ("tags")',
  moments_tags_idx: 'ON "moments" USING GIN ("tags")',
  kv_store_entity_key_trgm_idx: 'ON "kv_store" USING GIN ("entity_key" gin_trgm_ops)',
};

export async function dropGinIndexes(prisma: PrismaClient): Promise<void> {
  await prisma.$executeRawUnsafe(
    `DROP INDEX IF EXISTS ${Object.keys(DEFINITIONS)
      .map((name) => `"${name}"`)
      .join(', ')}`,
  );
}

/** Builds those that are missing (dropped by this import, or by one that was stopped). */
export async function ensureGinIndexes(prisma: PrismaClient): Promise<void> {
  for (const [name, definition] of Object.entries(DEFINITIONS)) await prisma.$executeRawUnsafe(`CREATE INDEX IF NOT EXISTS "${name}" ${definition}`);
}
