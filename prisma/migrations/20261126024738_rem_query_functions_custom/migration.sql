-- REM query modes that need per-statement planner settings run as functions: the setting and the
-- query travel in one statement (one round trip, no interactive transaction), and set_config(...,
-- true) ends with that statement's transaction.
-- Not for SQL mode: rem_reader_custom gets no EXECUTE on them.

-- FUZZY: keys whose words resemble the text. word_similarity(text, key) is the share of the
-- text's trigrams found in the best-matching run of whole words of the key; the GIN trigram index
-- on kv_store.entity_key finds the keys at or above the threshold, at most p_candidates of them
-- are ranked, so the work of one query is bounded however many keys share trigrams with the text.
CREATE FUNCTION "rem_fuzzy_custom"(p_tenant text, p_user text, p_text text, p_threshold real, p_limit int, p_candidates int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text, score real)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
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
