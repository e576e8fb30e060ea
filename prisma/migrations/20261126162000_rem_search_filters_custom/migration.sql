-- SEARCH with a WHERE filter, and the page of PDF chunks in its hits. p_filter is one JSON value
-- (see src/rem/search-filter.ts) bound as a parameter, never spliced into the statement. Without a
-- filter the nearest vectors come straight from the HNSW index as before; with one, the rows that
-- pass it (in the caller's scope, in the tables asked) are joined to their vectors inside the
-- nearest-vector query, so LIMIT counts only rows that pass (a pre-filter, not a post-filter of a
-- top-k). When few rows pass (under p_exact_rows in the caller's scope), their vectors are compared
-- exactly; when more do, the HNSW index is walked in distance order (iterative scan) and each row
-- met is checked against the filter, so an unselective filter costs what an unfiltered SEARCH
-- does instead of a scan of every row. A hit's page is its resource's metadata.page (PDF
-- chunks), else NULL.
DROP FUNCTION "rem_search_custom"(text, text, text, int, text, text[], int, float8);

CREATE FUNCTION "rem_search_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                    p_tables text[], p_limit int, p_max_distance float8, p_filter jsonb,
                                    p_exact_rows int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text,
               distance float8, page int)
LANGUAGE plpgsql AS $fn$
DECLARE
  nearest text;
  filtered text;
  passing int;
BEGIN
  PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
  IF p_filter IS NULL THEN
    nearest := $q$
      SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
      FROM "embeddings" e
      WHERE e.dimension = %1$s AND e.model = $2 AND e.field = 'content' AND e.entity_type = ANY($3)
        AND e.tenant_id = $4 AND (e.user_id = $5 OR e.user_id IS NULL)
      ORDER BY e.embedding::vector(%1$s) <=> $1::vector(%1$s)
      LIMIT $6$q$;
  ELSE
    filtered := $q$
      WITH scoped AS (
        SELECT 'entities'::text AS t, x.id, x.entity_type AS kind, x.tags, x.metadata, x.created_at, x.updated_at
        FROM "entities" x WHERE 'entities' = ANY($3) AND x.tenant_id = $4 AND (x.user_id = $5 OR x.user_id IS NULL)
        UNION ALL
        SELECT 'resources', x.id, x.category, x.tags, x.metadata, x.created_at, x.updated_at
        FROM "resources" x WHERE 'resources' = ANY($3) AND x.tenant_id = $4 AND (x.user_id = $5 OR x.user_id IS NULL)
        UNION ALL
        SELECT 'moments', x.id, x.moment_type, x.tags, x.metadata, x.created_at, x.updated_at
        FROM "moments" x WHERE 'moments' = ANY($3) AND x.tenant_id = $4 AND (x.user_id = $5 OR x.user_id IS NULL)
      ), passing AS (
        SELECT r.t, r.id FROM scoped r
        WHERE r.tags @> ARRAY(SELECT jsonb_array_elements_text(COALESCE($8->'tagsAll', '[]')))
          AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE($8->'tagsAny', '[]')) g
                          WHERE NOT r.tags && ARRAY(SELECT jsonb_array_elements_text(g)))
          AND ($8->>'type' IS NULL OR r.kind = $8->>'type')
          AND ($8->'metadata' IS NULL OR r.metadata @> ($8->'metadata'))
          AND ($8->'time'->>'created_gt' IS NULL OR r.created_at > ($8->'time'->>'created_gt')::timestamptz)
          AND ($8->'time'->>'created_gte' IS NULL OR r.created_at >= ($8->'time'->>'created_gte')::timestamptz)
          AND ($8->'time'->>'created_lt' IS NULL OR r.created_at < ($8->'time'->>'created_lt')::timestamptz)
          AND ($8->'time'->>'created_lte' IS NULL OR r.created_at <= ($8->'time'->>'created_lte')::timestamptz)
          AND ($8->'time'->>'updated_gt' IS NULL OR r.updated_at > ($8->'time'->>'updated_gt')::timestamptz)
          AND ($8->'time'->>'updated_gte' IS NULL OR r.updated_at >= ($8->'time'->>'updated_gte')::timestamptz)
          AND ($8->'time'->>'updated_lt' IS NULL OR r.updated_at < ($8->'time'->>'updated_lt')::timestamptz)
          AND ($8->'time'->>'updated_lte' IS NULL OR r.updated_at <= ($8->'time'->>'updated_lte')::timestamptz)
      )$q$;
    EXECUTE filtered || ' SELECT count(*)::int FROM (SELECT 1 FROM passing LIMIT 2000) c'
      INTO passing USING p_vector, p_model, p_tables, p_tenant, p_user, p_limit, p_max_distance, p_filter;
    IF passing >= p_exact_rows THEN
      PERFORM set_config('enable_sort', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true);
    END IF;
    nearest := filtered || $q$
      SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
      FROM "embeddings" e JOIN passing p ON p.t = e.entity_type AND p.id = e.entity_id
      WHERE e.dimension = %1$s AND e.model = $2 AND e.field = 'content' AND e.entity_type = ANY($3)
        AND e.tenant_id = $4 AND (e.user_id = $5 OR e.user_id IS NULL)
      ORDER BY e.embedding::vector(%1$s) <=> $1::vector(%1$s)
      LIMIT $6$q$;
  END IF;
  RETURN QUERY EXECUTE format($q$
    WITH nearest AS MATERIALIZED (%2$s)
    SELECT kv.entity_type, kv.entity_id, kv.entity_key, kv.content_summary, kv.graph_edges, kv.user_id, n.distance,
           CASE WHEN jsonb_typeof(r.metadata->'page') = 'number' AND (r.metadata->>'page')::numeric BETWEEN 1 AND 2147483647
                THEN (r.metadata->>'page')::numeric::int END
    FROM nearest n JOIN "kv_store" kv ON kv.entity_type = n.entity_type AND kv.entity_id = n.entity_id
    LEFT JOIN "resources" r ON n.entity_type = 'resources' AND r.id = n.entity_id
    WHERE n.distance <= $7
    ORDER BY n.distance, kv.entity_key$q$, p_dimension, format(nearest, p_dimension))
  USING p_vector, p_model, p_tables, p_tenant, p_user, p_limit, p_max_distance, p_filter;
  IF passing >= p_exact_rows THEN
    PERFORM set_config('enable_sort', 'on', true), set_config('enable_hashjoin', 'on', true), set_config('enable_mergejoin', 'on', true);
  END IF;
END
$fn$;

REVOKE ALL ON FUNCTION "rem_search_custom"(text, text, text, int, text, text[], int, float8, jsonb, int) FROM PUBLIC;
