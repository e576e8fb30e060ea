-- SEARCH on a plan made once per connection for the dimensions with an HNSW index (384, 1536):
-- the query was built with format() and so planned on every call (0.35 ms of planning per SEARCH
-- on PostgreSQL at 100k rows, more on PGlite). The dimension must appear as a literal to match its
-- partial index, hence one copy of the query per indexed dimension; others stay dynamic (they are
-- searched without an index anyway).
CREATE OR REPLACE FUNCTION "rem_search_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                               p_tables text[], p_limit int, p_max_distance float8)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text, distance float8)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
  IF p_dimension = 384 THEN
    RETURN QUERY
      WITH nearest AS MATERIALIZED (
        SELECT e.entity_type, e.entity_id, e.embedding::vector(384) <=> p_vector::vector(384) AS distance
        FROM "embeddings" e
        WHERE e.dimension = 384 AND e.model = p_model AND e.field = 'content' AND e.entity_type = ANY(p_tables)
          AND e.tenant_id = p_tenant AND (e.user_id = p_user OR e.user_id IS NULL)
        ORDER BY e.embedding::vector(384) <=> p_vector::vector(384)
        LIMIT p_limit
      )
      SELECT kv.entity_type, kv.entity_id, kv.entity_key, kv.content_summary, kv.graph_edges, kv.user_id, n.distance
      FROM nearest n JOIN "kv_store" kv ON kv.entity_type = n.entity_type AND kv.entity_id = n.entity_id
      WHERE n.distance <= p_max_distance
      ORDER BY n.distance, kv.entity_key;
  ELSIF p_dimension = 1536 THEN
    RETURN QUERY
      WITH nearest AS MATERIALIZED (
        SELECT e.entity_type, e.entity_id, e.embedding::vector(1536) <=> p_vector::vector(1536) AS distance
        FROM "embeddings" e
        WHERE e.dimension = 1536 AND e.model = p_model AND e.field = 'content' AND e.entity_type = ANY(p_tables)
          AND e.tenant_id = p_tenant AND (e.user_id = p_user OR e.user_id IS NULL)
        ORDER BY e.embedding::vector(1536) <=> p_vector::vector(1536)
        LIMIT p_limit
      )
      SELECT kv.entity_type, kv.entity_id, kv.entity_key, kv.content_summary, kv.graph_edges, kv.user_id, n.distance
      FROM nearest n JOIN "kv_store" kv ON kv.entity_type = n.entity_type AND kv.entity_id = n.entity_id
      WHERE n.distance <= p_max_distance
      ORDER BY n.distance, kv.entity_key;
  ELSE
    RETURN QUERY EXECUTE format($q$
      WITH nearest AS MATERIALIZED (
        SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
        FROM "embeddings" e
        WHERE e.dimension = %1$s AND e.model = $2 AND e.field = 'content' AND e.entity_type = ANY($3)
          AND e.tenant_id = $4 AND (e.user_id = $5 OR e.user_id IS NULL)
        ORDER BY e.embedding::vector(%1$s) <=> $1::vector(%1$s)
        LIMIT $6
      )
      SELECT kv.entity_type, kv.entity_id, kv.entity_key, kv.content_summary, kv.graph_edges, kv.user_id, n.distance
      FROM nearest n JOIN "kv_store" kv ON kv.entity_type = n.entity_type AND kv.entity_id = n.entity_id
      WHERE n.distance <= $7
      ORDER BY n.distance, kv.entity_key$q$, p_dimension)
    USING p_vector, p_model, p_tables, p_tenant, p_user, p_limit, p_max_distance;
  END IF;
END
$fn$;
