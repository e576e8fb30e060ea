-- REM query modes that need per-statement planner settings run as functions: the setting and the
-- query travel in one statement (one round trip, no interactive transaction), and set_config(...,
-- true) ends with that statement's transaction.
-- Not for SQL mode: rem_reader_custom gets no EXECUTE on them. Their statements are planned for
-- each call's values (force_custom_plan): a generic plan cannot see the text's trigrams and scans
-- every key instead of using the trigram index.

-- FUZZY: keys whose words resemble the text. word_similarity(text, key) is the share of the
-- text's trigrams found in the best-matching run of whole words of the key; the GIN trigram index
-- on kv_store.entity_key finds the keys at or above the threshold, at most p_candidates of them
-- are ranked, so the work of one query is bounded however many keys share trigrams with the text.
CREATE FUNCTION "rem_fuzzy_custom"(p_tenant text, p_user text, p_text text, p_threshold real, p_limit int, p_candidates int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text, score real)
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $fn$
#variable_conflict use_column
BEGIN
  -- Without enable_seqscan = off, LIMIT p_candidates tempts the planner into a sequential scan that
  -- "finds enough rows early" when it overestimates the matches, and reads every key when there
  -- are few (18 s at 1M keys instead of a bitmap scan of the trigram index).
  PERFORM set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  RETURN QUERY
    SELECT c.entity_type, c.entity_id, c.entity_key, c.content_summary, c.graph_edges, c.user_id, c.score
    FROM (
      SELECT kv.entity_type, kv.entity_id, kv.entity_key, kv.content_summary, kv.graph_edges, kv.user_id,
             word_similarity(p_text, kv.entity_key) AS score
      FROM "kv_store" kv
      WHERE kv.entity_key %> p_text AND kv.tenant_id = p_tenant AND (kv.user_id = p_user OR kv.user_id IS NULL)
      LIMIT p_candidates
    ) c
    ORDER BY c.score DESC, c.entity_key
    LIMIT p_limit;
END
$fn$;

-- SEARCH: nearest vectors of one model and dimension through that dimension's HNSW index, with
-- the filters (tenant, user, model, tables) applied while walking the index (iterative scan), not
-- after a fixed top-k. The dimension is spliced in as an integer so that the expression matches
-- the partial index of that dimension.
CREATE FUNCTION "rem_search_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                    p_tables text[], p_limit int, p_max_distance float8)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text, distance float8)
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
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
END
$fn$;

REVOKE ALL ON FUNCTION "rem_fuzzy_custom"(text, text, text, real, int, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION "rem_search_custom"(text, text, text, int, text, text[], int, float8) FROM PUBLIC;

-- TRAVERSE: breadth-first over graph_edges in one statement. Each level looks up the keys its
-- edges name (kv_store by tenant and key), in edge order; a row is reached once (the first path
-- wins, cycles end there), a key is looked up once, and the walk stops at p_depth levels or
-- p_limit hits. A hit's score is the product of the edge weights along its path.
CREATE FUNCTION "rem_traverse_custom"(p_tenant text, p_user text, p_from text, p_rel text, p_depth int, p_limit int)
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

REVOKE ALL ON FUNCTION "rem_traverse_custom"(text, text, text, text, int, int) FROM PUBLIC;
