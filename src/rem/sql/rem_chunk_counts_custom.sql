-- rem_chunk_counts_custom as it stands after prisma/migrations/20261128142100_search_chunk_counts_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_chunk_counts_custom"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  -- The statement's resources, +1 for a row written and -1 for a row's former state (an UPDATE has
  -- both, and nets out unless it moved the row to another file). Only the transition tables of the
  -- event that fired exist.
  changed constant text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT tenant_id, user_id, metadata, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT tenant_id, user_id, metadata, -1 AS sign FROM old_rows'
    ELSE 'SELECT tenant_id, user_id, metadata, 1 AS sign FROM new_rows UNION ALL SELECT tenant_id, user_id, metadata, -1 FROM old_rows' END;
BEGIN
  -- Each file's count, then the counts of the corpora holding the file. A file deleted in this
  -- statement has left its corpora already: rem_document_chunk_counts_custom took its chunks out.
  EXECUTE format($q$
    WITH delta AS (
      SELECT r.tenant_id, COALESCE(r.user_id, '') AS owner, r.metadata->>'parent' AS key, sum(r.sign)::int AS n
      FROM (%s) r WHERE r.metadata->>'parent' IS NOT NULL
      GROUP BY 1, 2, 3 HAVING sum(r.sign) <> 0),
    files AS (
      INSERT INTO "document_chunk_counts" AS c ("tenant_id", "parent", "chunks")
      SELECT tenant_id, owner || ':' || key, n FROM delta
      ON CONFLICT ("tenant_id", "parent") DO UPDATE SET "chunks" = c."chunks" + EXCLUDED."chunks")
    UPDATE "corpus_chunk_counts" k SET "chunks" = k."chunks" + m.n
    FROM (SELECT cd.corpus_id, delta.owner, sum(delta.n)::int AS n
          FROM delta JOIN "resources" d ON d.tenant_id = delta.tenant_id AND d.key = delta.key AND COALESCE(d.user_id, '') = delta.owner
          JOIN "corpus_documents" cd ON cd.document_id = d.id
          GROUP BY 1, 2) m
    WHERE k.corpus_id = m.corpus_id AND k.owner = m.owner$q$, changed);
  RETURN NULL;
END
$fn$;
