-- rem_in_corpus_custom as it stands after prisma/migrations/20261128220011_search_corpus_check_planned_once_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_in_corpus_custom"(p_tenant text, p_user text, p_parent text, p_corpus uuid)
RETURNS boolean
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  -- Whether a row whose parent is p_parent (its file's key; that file has the row's owner) is a chunk
  -- of a document in the corpus: by key, then by primary key.
  RETURN EXISTS (
    SELECT 1 FROM "resources" d JOIN "corpus_documents" cd ON cd.document_id = d.id
    WHERE d.tenant_id = p_tenant AND d.key = p_parent AND d.user_id IS NOT DISTINCT FROM p_user AND cd.corpus_id = p_corpus);
END
$fn$;
