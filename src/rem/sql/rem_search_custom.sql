-- rem_search_custom as it stands after prisma/migrations/20261128073200_document_search_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_search_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                    p_tables text[], p_limit int, p_max_distance float8, p_filter jsonb,
                                    p_exact_rows int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text,
               distance float8, page int)
LANGUAGE plpgsql AS $fn$
DECLARE
  -- The filter on a memory row x; %1$I is the table's type column.
  cond constant text := $c$
    x.tags @> ARRAY(SELECT jsonb_array_elements_text(COALESCE($8->'tagsAll', '[]')))
    AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE($8->'tagsAny', '[]')) g
                    WHERE NOT x.tags && ARRAY(SELECT jsonb_array_elements_text(g)))
    AND ($8->>'type' IS NULL OR x.%1$I = $8->>'type')
    AND ($8->'metadata' IS NULL OR x.metadata @> ($8->'metadata'))
    AND ($8->'parents' IS NULL
         OR (COALESCE(x.user_id, '') || ':' || (x.metadata->>'parent')) = ANY (ARRAY(SELECT jsonb_array_elements_text($8->'parents'))))
    AND ($8->>'contentContains' IS NULL OR strpos(lower(x.content), lower($8->>'contentContains')) > 0)
    AND ($8->'time'->>'created_gt' IS NULL OR x.created_at > ($8->'time'->>'created_gt')::timestamptz)
    AND ($8->'time'->>'created_gte' IS NULL OR x.created_at >= ($8->'time'->>'created_gte')::timestamptz)
    AND ($8->'time'->>'created_lt' IS NULL OR x.created_at < ($8->'time'->>'created_lt')::timestamptz)
    AND ($8->'time'->>'created_lte' IS NULL OR x.created_at <= ($8->'time'->>'created_lte')::timestamptz)
    AND ($8->'time'->>'updated_gt' IS NULL OR x.updated_at > ($8->'time'->>'updated_gt')::timestamptz)
    AND ($8->'time'->>'updated_gte' IS NULL OR x.updated_at >= ($8->'time'->>'updated_gte')::timestamptz)
    AND ($8->'time'->>'updated_lt' IS NULL OR x.updated_at < ($8->'time'->>'updated_lt')::timestamptz)
    AND ($8->'time'->>'updated_lte' IS NULL OR x.updated_at <= ($8->'time'->>'updated_lte')::timestamptz)$c$;
  scope constant text := $c$
      WHERE e.dimension = %1$s AND e.model = $2 AND e.field = 'content' AND e.entity_type = ANY($3)
        AND e.tenant_id = $4 AND (e.user_id = $5 OR e.user_id IS NULL)$c$;
  passing text;
  passing_rows int;
  nearest text;
BEGIN
  PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
  IF p_filter IS NOT NULL THEN
    passing := format($q$
      WITH passing AS (
        SELECT 'entities'::text AS t, x.id FROM "entities" x
        WHERE 'entities' = ANY($3) AND x.tenant_id = $4 AND (x.user_id = $5 OR x.user_id IS NULL) AND %1$s
        UNION ALL
        SELECT 'resources', x.id FROM "resources" x
        WHERE 'resources' = ANY($3) AND x.tenant_id = $4 AND (x.user_id = $5 OR x.user_id IS NULL) AND %2$s
        UNION ALL
        SELECT 'moments', x.id FROM "moments" x
        WHERE 'moments' = ANY($3) AND x.tenant_id = $4 AND (x.user_id = $5 OR x.user_id IS NULL) AND %3$s
      )$q$, format(cond, 'entity_type'), format(cond, 'category'), format(cond, 'moment_type'));
    EXECUTE passing || ' SELECT count(*)::int FROM (SELECT 1 FROM passing LIMIT $9) c'
      INTO passing_rows USING p_vector, p_model, p_tables, p_tenant, p_user, p_limit, p_max_distance, p_filter, p_exact_rows;
  END IF;
  IF p_filter IS NULL THEN
    nearest := $q$
      SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
      FROM "embeddings" e$q$ || scope || $q$
      ORDER BY e.embedding::vector(%1$s) <=> $1::vector(%1$s)
      LIMIT $6$q$;
  ELSIF passing_rows < p_exact_rows THEN
    nearest := passing || $q$
      SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
      FROM "embeddings" e JOIN passing p ON p.t = e.entity_type AND p.id = e.entity_id$q$ || scope || $q$
      ORDER BY e.embedding::vector(%1$s) <=> $1::vector(%1$s)
      LIMIT $6$q$;
  ELSE
    nearest := $q$
      SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
      FROM "embeddings" e$q$ || scope || format($q$
        AND CASE e.entity_type
              WHEN 'entities' THEN EXISTS (SELECT 1 FROM "entities" x WHERE x.id = e.entity_id AND %1$s)
              WHEN 'resources' THEN EXISTS (SELECT 1 FROM "resources" x WHERE x.id = e.entity_id AND %2$s)
              ELSE EXISTS (SELECT 1 FROM "moments" x WHERE x.id = e.entity_id AND %3$s)
            END$q$, format(cond, 'entity_type'), format(cond, 'category'), format(cond, 'moment_type')) || $q$
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
END
$fn$;
