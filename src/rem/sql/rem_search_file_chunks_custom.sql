-- rem_search_file_chunks_custom as it stands after prisma/migrations/20261128142100_search_chunk_counts_custom.
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
  -- The chunks SEARCH finds among the resources, each with its text and its file (visible, by key
  -- and owner; a chunk of no such file is left out). The LIMIT, which the search keeps anyway, tells
  -- the planner how few rows come: else it expects a thousand and hashes every resource to join them.
  RETURN QUERY
    SELECT true, s.entity_id, s.entity_key, c.content, s.distance, s.page, d.id, d.key, d.name
    FROM (SELECT * FROM "rem_search_custom"(p_tenant, p_user, p_vector, p_dimension, p_model, ARRAY['resources'], p_limit, p_max_distance, p_filter, p_exact_rows)
          LIMIT p_limit) s
    JOIN "resources" c ON c.id = s.entity_id
    JOIN "resources" d ON d.tenant_id = p_tenant AND d.key = c.metadata->>'parent' AND d.user_id IS NOT DISTINCT FROM c.user_id
      AND d.category = p_file_category AND (d.user_id IS NULL OR d.user_id = p_user)
    ORDER BY s.distance, s.entity_key;
END
$fn$;
