-- rem_document_chunk_counts_custom as it stands after prisma/migrations/20261128142100_search_chunk_counts_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_document_chunk_counts_custom"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- Before a file's row goes, while its memberships still name it: the cascade that deletes them
  -- runs after the row is gone, when rem_corpus_chunk_counts_custom can no longer tell its chunks.
  UPDATE "corpus_chunk_counts" k SET "chunks" = k."chunks" - c."chunks"
  FROM "corpus_documents" cd, "document_chunk_counts" c
  WHERE cd.document_id = OLD.id AND k.corpus_id = cd.corpus_id AND k.owner = COALESCE(OLD.user_id, '')
    AND c.tenant_id = OLD.tenant_id AND c.parent = COALESCE(OLD.user_id, '') || ':' || OLD.key;
  RETURN OLD;
END
$fn$;
