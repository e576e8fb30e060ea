-- rem_search_custom as it stands after prisma/migrations/20261128190011_search_file_chunks_one_query_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_search_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                    p_tables text[], p_limit int, p_max_distance float8, p_filter jsonb,
                                    p_exact_rows int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text,
               distance float8, page int)
LANGUAGE plpgsql AS $fn$
BEGIN
  RETURN QUERY EXECUTE format($q$
    WITH nearest AS MATERIALIZED (%s)
    SELECT kv.entity_type, kv.entity_id, kv.entity_key, kv.content_summary, kv.graph_edges, kv.user_id, n.distance,
           CASE WHEN jsonb_typeof(r.metadata->'page') = 'number' AND (r.metadata->>'page')::numeric BETWEEN 1 AND 2147483647
                THEN (r.metadata->>'page')::numeric::int END
    FROM nearest n JOIN "kv_store" kv ON kv.entity_type = n.entity_type AND kv.entity_id = n.entity_id
    LEFT JOIN "resources" r ON n.entity_type = 'resources' AND r.id = n.entity_id
    WHERE n.distance <= $7
    ORDER BY n.distance, kv.entity_key$q$,
    "rem_search_nearest_custom"(p_tenant, p_user, p_vector, p_dimension, p_model, p_tables, p_limit, p_max_distance, p_filter, p_exact_rows))
  USING p_vector, p_model, p_tables, p_tenant, p_user, p_limit, p_max_distance, p_filter;
END
$fn$;
