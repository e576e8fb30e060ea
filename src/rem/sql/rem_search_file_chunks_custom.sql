-- rem_search_file_chunks_custom as it stands after prisma/migrations/20261128190011_search_file_chunks_one_query_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_search_file_chunks_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                    p_file_category text, p_limit int, p_max_distance float8, p_filter jsonb, p_exact_rows int)
RETURNS TABLE (corpus_visible boolean, entity_id uuid, entity_key text, content text, distance float8, page int,
               file_id uuid, file_key text, file_name text)
LANGUAGE plpgsql AS $fn$
BEGIN
  -- A corpus the caller cannot see: one row saying so, and no search.
  IF p_filter ? 'corpus' AND NOT EXISTS (
      SELECT 1 FROM "corpora" k WHERE k.id = (p_filter->>'corpus')::uuid AND k.tenant_id = p_tenant AND (k.user_id IS NULL OR k.user_id = p_user)) THEN
    corpus_visible := false;
    RETURN NEXT;
    RETURN;
  END IF;
  -- SEARCH's nearest resources, each with its text and its file (visible, by key and owner; a chunk
  -- of no such file is left out), in the statement that finds them: the chunk's own row stands in
  -- for the kv_store row SEARCH reads (same key), and nothing is planned or materialized twice.
  RETURN QUERY EXECUTE format($q$
    WITH nearest AS MATERIALIZED (%s)
    SELECT true, c.id, c.key, c.content, n.distance,
           CASE WHEN jsonb_typeof(c.metadata->'page') = 'number' AND (c.metadata->>'page')::numeric BETWEEN 1 AND 2147483647
                THEN (c.metadata->>'page')::numeric::int END,
           d.id, d.key, d.name
    FROM nearest n JOIN "resources" c ON c.id = n.entity_id
    JOIN "resources" d ON d.tenant_id = $4 AND d.key = c.metadata->>'parent' AND d.user_id IS NOT DISTINCT FROM c.user_id
      AND d.category = $9 AND (d.user_id IS NULL OR d.user_id = $5)
    WHERE n.distance <= $7
    ORDER BY n.distance, c.key$q$,
    "rem_search_nearest_custom"(p_tenant, p_user, p_vector, p_dimension, p_model, ARRAY['resources'], p_limit, p_max_distance, p_filter, p_exact_rows))
  USING p_vector, p_model, ARRAY['resources'], p_tenant, p_user, p_limit, p_max_distance, p_filter, p_file_category;
END
$fn$;
