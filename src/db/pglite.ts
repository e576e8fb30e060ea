import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';

/** Opens an embedded PostgreSQL with the extensions the migrations need. `memory://` keeps nothing. */
export async function openPglite(dataDir: string): Promise<PGlite> {
  // PGlite does not create the parent folders of its data directory.
  if (!dataDir.startsWith('memory://')) await mkdir(dataDir, { recursive: true });
  return PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
}
