-- rem_corpus_chunk_counts_custom as it stands after prisma/migrations/20261128142100_search_chunk_counts_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_corpus_chunk_counts_custom"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  changed constant text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT corpus_id, document_id, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT corpus_id, document_id, -1 AS sign FROM old_rows'
    ELSE 'SELECT corpus_id, document_id, 1 AS sign FROM new_rows UNION ALL SELECT corpus_id, document_id, -1 FROM old_rows' END;
BEGIN
  -- A document joining or leaving a corpus adds or takes out its chunks. A deleted document or
  -- corpus no longer joins: the document's trigger took its chunks out, the corpus's counts went with it.
  EXECUTE format($q$
    INSERT INTO "corpus_chunk_counts" AS k ("corpus_id", "owner", "chunks")
    SELECT m.corpus_id, COALESCE(d.user_id, ''), sum(m.sign * COALESCE(c.chunks, 0))::int
    FROM (%s) m JOIN "corpora" ON corpora.id = m.corpus_id
    JOIN "resources" d ON d.id = m.document_id
    LEFT JOIN "document_chunk_counts" c ON c.tenant_id = d.tenant_id AND c.parent = COALESCE(d.user_id, '') || ':' || d.key
    GROUP BY 1, 2
    ON CONFLICT ("corpus_id", "owner") DO UPDATE SET "chunks" = k."chunks" + EXCLUDED."chunks"$q$, changed);
  RETURN NULL;
END
$fn$;
