-- rem_traverse_custom as it stands after prisma/migrations/20261126100000_rem_generic_plans_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_traverse_custom"(p_tenant text, p_user text, p_from text, p_rel text, p_depth int, p_limit int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text,
               path text[], rel_type text, depth int, score float8)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_custom_plan AS $fn$
#variable_conflict use_column
DECLARE
  seen text[];
  expanded text[] := ARRAY[p_from];
  level_keys text[];
  wanted jsonb;
  frontier jsonb;
  next_frontier jsonb;
  found int := 0;
  lvl int;
  node_path jsonb;
  r record;
BEGIN
  SELECT COALESCE(array_agg(kv.entity_type || ':' || kv.entity_id), '{}'),
         COALESCE(jsonb_agg(jsonb_build_object('path', jsonb_build_array(kv.entity_key), 'score', 1, 'edges', kv.graph_edges)
                            ORDER BY kv.user_id NULLS LAST, kv.entity_type, kv.entity_id), '[]')
    INTO seen, frontier
    FROM "kv_store" kv
    WHERE kv.entity_key = p_from AND kv.tenant_id = p_tenant AND (kv.user_id = p_user OR kv.user_id IS NULL);
  FOR lvl IN 1..p_depth LOOP
    EXIT WHEN jsonb_array_length(frontier) = 0 OR found >= p_limit;
    SELECT COALESCE(jsonb_agg(jsonb_build_object('ord', f.ord, 'eord', e.ord, 'path', f.node->'path', 'score', (f.node->>'score')::float8,
                                                 'dst', e.edge->>'dst', 'rel', e.edge->>'rel_type',
                                                 'weight', CASE WHEN jsonb_typeof(e.edge->'weight') = 'number' THEN (e.edge->>'weight')::float8 ELSE 1 END)), '[]'),
           COALESCE(array_agg(DISTINCT e.edge->>'dst'), '{}')
      INTO wanted, level_keys
      FROM jsonb_array_elements(frontier) WITH ORDINALITY AS f(node, ord)
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(f.node->'edges') = 'array' THEN f.node->'edges' ELSE '[]'::jsonb END)
        WITH ORDINALITY AS e(edge, ord)
      WHERE jsonb_typeof(e.edge->'dst') = 'string' AND jsonb_typeof(e.edge->'rel_type') = 'string'
        AND (p_rel IS NULL OR lower(e.edge->>'rel_type') = p_rel)
        AND NOT (e.edge->>'dst' = ANY(expanded));
    next_frontier := '[]';
    FOR r IN
      SELECT w.path AS from_path, w.score AS from_score, w.rel, w.weight,
             kv.entity_type AS kt, kv.entity_id AS kid, kv.entity_key AS kkey, kv.content_summary AS ksum,
             kv.graph_edges AS kedges, kv.user_id AS kuser
      FROM jsonb_to_recordset(wanted) AS w(ord bigint, eord bigint, path jsonb, score float8, dst text, rel text, weight float8)
      JOIN "kv_store" kv ON kv.entity_key = w.dst AND kv.tenant_id = p_tenant AND (kv.user_id = p_user OR kv.user_id IS NULL)
      ORDER BY w.ord, w.eord, kv.user_id NULLS LAST, kv.entity_type, kv.entity_id
    LOOP
      CONTINUE WHEN found >= p_limit OR (r.kt || ':' || r.kid) = ANY(seen);
      seen := seen || (r.kt || ':' || r.kid);
      found := found + 1;
      node_path := r.from_path || to_jsonb(r.kkey);
      next_frontier := next_frontier || jsonb_build_array(jsonb_build_object('path', node_path, 'score', r.from_score * r.weight, 'edges', r.kedges));
      entity_type := r.kt;
      entity_id := r.kid;
      entity_key := r.kkey;
      content_summary := r.ksum;
      graph_edges := r.kedges;
      user_id := r.kuser;
      path := ARRAY(SELECT jsonb_array_elements_text(node_path));
      rel_type := r.rel;
      depth := lvl;
      score := r.from_score * r.weight;
      RETURN NEXT;
    END LOOP;
    expanded := expanded || level_keys;
    frontier := next_frontier;
  END LOOP;
END
$fn$;

ALTER FUNCTION "rem_traverse_custom"(text, text, text, text, int, int) SET plan_cache_mode = force_generic_plan;
