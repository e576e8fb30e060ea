-- A corpus search, planned less on every call (issue 39: on PostgreSQL similarity_search over a
-- corpus took 1.9x the bare SEARCH). Two statements of rem_search_nearest_custom were planned anew
-- on every search:
-- - the check of each row the HNSW scan yields was an EXISTS subquery in the statement EXECUTE
--   plans each time, and the subquery's own planning doubled that statement's (0.36 vs 0.16 ms).
--   It is now a call of rem_in_corpus_custom, whose static statement plpgsql keeps planned for the
--   connection; the search's statement is planned as a join of two tables only. Same condition.
-- - the count of a corpus's or files' chunks was one statement with a CASE per field: a plan for any
--   filter costs more than one for the filter at hand, so plpgsql never kept it (0.07 ms a search).
--   Now one statement per field.

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

REVOKE ALL ON FUNCTION "rem_in_corpus_custom"(text, text, text, uuid) FROM PUBLIC;

CREATE OR REPLACE FUNCTION "rem_search_nearest_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                    p_tables text[], p_limit int, p_max_distance float8, p_filter jsonb,
                                    p_exact_rows int)
RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
  -- The filter on a memory row x, made of the clauses of the fields the filter has and nothing else:
  -- a clause of an absent field (`tags @> '{}'`) still costs a look at every row, and misleads the
  -- planner (a GIN scan of the whole table, a hashed EXISTS built from every row). %1$I is the
  -- table's type column. Values stay in $8; only the choice of clauses is made here.
  cond text := 'true';
  scope constant text := $c$
      WHERE e.dimension = %1$s AND e.model = $2 AND e.field = 'content' AND e.entity_type = ANY($3)
        AND e.tenant_id = $4 AND (e.user_id = $5 OR e.user_id IS NULL)$c$;
  tables constant text[][] := ARRAY[['entities', 'entity_type'], ['resources', 'category'], ['moments', 'moment_type']];
  passing text;
  passing_rows int;
  nearest text;
  rows_from text := '%1$I x';
  corpus_check text := '';
  part text;
  parts int := 0;
BEGIN
  PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
  IF p_filter ? 'tagsAll' THEN
    cond := cond || $c$ AND x.tags @> ARRAY(SELECT jsonb_array_elements_text($8->'tagsAll'))$c$;
  END IF;
  IF p_filter ? 'tagsAny' THEN
    cond := cond || $c$ AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements($8->'tagsAny') g
                                        WHERE NOT x.tags && ARRAY(SELECT jsonb_array_elements_text(g)))$c$;
  END IF;
  IF p_filter ? 'type' THEN
    cond := cond || $c$ AND x.%1$I = $8->>'type'$c$;
  END IF;
  IF p_filter ? 'metadata' THEN
    cond := cond || $c$ AND x.metadata @> ($8->'metadata')$c$;
  END IF;
  IF p_filter ? 'parents' THEN
    -- The expression of the index resources_parent_custom: a document's chunks by one index range.
    cond := cond || $c$ AND (COALESCE(x.user_id, '') || ':' || (x.metadata->>'parent')) = ANY (ARRAY(SELECT jsonb_array_elements_text($8->'parents')))$c$;
  END IF;
  IF p_filter ? 'corpus' THEN
    -- Chunks of the documents in a corpus, written twice: to find the scope's rows (from the corpus's
    -- documents to their chunks by the parent index above, as a join that stops when enough pass),
    -- and to check one row the HNSW scan yields (rem_in_corpus_custom: a check per row, never a hash
    -- of the whole corpus built first, in a statement planned once per connection, not per search).
    rows_from := $c$"corpus_documents" cd JOIN "resources" d ON d.id = cd.document_id AND d.tenant_id = $4
        JOIN %1$I x ON (COALESCE(x.user_id, '') || ':' || (x.metadata->>'parent')) = COALESCE(d.user_id, '') || ':' || d.key
          AND cd.corpus_id = ($8->>'corpus')::uuid$c$;
    corpus_check := $c$ AND "rem_in_corpus_custom"(x.tenant_id, x.user_id, x.metadata->>'parent', ($8->>'corpus')::uuid)$c$;
  END IF;
  IF p_filter ? 'contentContains' THEN
    cond := cond || $c$ AND strpos(lower(x.content), lower($8->>'contentContains')) > 0$c$;
  END IF;
  IF p_filter ? 'time' THEN
    cond := cond || $c$
    AND ($8->'time'->>'created_gt' IS NULL OR x.created_at > ($8->'time'->>'created_gt')::timestamptz)
    AND ($8->'time'->>'created_gte' IS NULL OR x.created_at >= ($8->'time'->>'created_gte')::timestamptz)
    AND ($8->'time'->>'created_lt' IS NULL OR x.created_at < ($8->'time'->>'created_lt')::timestamptz)
    AND ($8->'time'->>'created_lte' IS NULL OR x.created_at <= ($8->'time'->>'created_lte')::timestamptz)
    AND ($8->'time'->>'updated_gt' IS NULL OR x.updated_at > ($8->'time'->>'updated_gt')::timestamptz)
    AND ($8->'time'->>'updated_gte' IS NULL OR x.updated_at >= ($8->'time'->>'updated_gte')::timestamptz)
    AND ($8->'time'->>'updated_lt' IS NULL OR x.updated_at < ($8->'time'->>'updated_lt')::timestamptz)
    AND ($8->'time'->>'updated_lte' IS NULL OR x.updated_at <= ($8->'time'->>'updated_lte')::timestamptz)$c$;
  END IF;
  IF p_filter IS NOT NULL THEN
    -- The rows that pass, counted up to p_exact_rows: fewer, and their vectors are compared exactly
    -- (every row of a small scope found, whatever the index would have visited first). A scope of
    -- corpus or files alone reads the chunk counts the triggers keep instead (its caller's share),
    -- an upper bound where a type also filters; counting the rows cost twice the HNSW scan.
    FOR i IN 1 .. array_length(tables, 1) LOOP
      CONTINUE WHEN NOT tables[i][1] = ANY (p_tables);
      part := format($q$
        SELECT %1$L::text AS t, x.id FROM %3$s
        WHERE x.tenant_id = $4 AND (x.user_id = $5 OR x.user_id IS NULL) AND %2$s$q$, tables[i][1], format(cond, tables[i][2]), format(rows_from, tables[i][1]));
      passing := CASE WHEN passing IS NULL THEN part ELSE passing || ' UNION ALL ' || part END;
    END LOOP;
    passing := 'WITH passing AS (' || COALESCE(passing, 'SELECT NULL::text AS t, NULL::uuid AS id WHERE false') || ')';
    IF NOT 'resources' = ANY (p_tables) AND (p_filter ? 'corpus' OR p_filter ? 'parents') THEN
      passing_rows := 0;
    ELSIF (p_filter ? 'corpus' OR p_filter ? 'parents') AND p_filter - ARRAY['type', 'corpus', 'parents'] = '{}'::jsonb THEN
      -- One statement per field: one with both fields' CASEs was planned anew on every search (its
      -- plan for any filter costs more than one for the filter at hand), 0.07 ms. LEAST leaves out
      -- the NULL of the field the filter lacks.
      IF p_filter ? 'corpus' THEN
        SELECT COALESCE(sum(k.chunks), 0) INTO passing_rows FROM "corpus_chunk_counts" k
        WHERE k.corpus_id = (p_filter->>'corpus')::uuid AND k.owner IN ('', COALESCE(p_user, ''));
      END IF;
      IF p_filter ? 'parents' THEN
        SELECT LEAST(passing_rows, COALESCE(sum(c.chunks), 0)) INTO passing_rows FROM "document_chunk_counts" c
        WHERE c.tenant_id = p_tenant AND c.parent = ANY (ARRAY(SELECT jsonb_array_elements_text(p_filter->'parents')))
          AND (c.parent LIKE ':%' OR left(c.parent, length(p_user) + 1) = p_user || ':');
      END IF;
    ELSE
      EXECUTE passing || ' SELECT count(*)::int FROM (SELECT 1 FROM passing LIMIT $9) c'
        INTO passing_rows USING p_vector, p_model, p_tables, p_tenant, p_user, p_limit, p_max_distance, p_filter, p_exact_rows;
    END IF;
  END IF;
  IF p_filter IS NULL THEN
    nearest := $q$
      SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
      FROM "embeddings" e$q$ || scope || $q$
      ORDER BY e.embedding::vector(%1$s) <=> $1::vector(%1$s)
      LIMIT $6$q$;
  ELSIF passing_rows < p_exact_rows THEN
    -- Every passing row's distance, then the nearest: materialized, so that the planner cannot walk
    -- the HNSW index in order instead and visit the rows outside the scope until enough pass.
    nearest := passing || $q$,
      scored AS MATERIALIZED (
        SELECT e.entity_type, e.entity_id, e.embedding::vector(%1$s) <=> $1::vector(%1$s) AS distance
        FROM passing p JOIN "embeddings" e ON p.t = e.entity_type AND p.id = e.entity_id$q$ || scope || $q$)
      SELECT * FROM scored ORDER BY distance LIMIT $6$q$;
  ELSE
    -- Many rows pass: the HNSW index in order (iterative scan), each row it yields joined to its
    -- memory row by primary key and kept if it passes; one such scan per table, then the best of all.
    -- A join, not EXISTS: the planner may turn EXISTS into a hash of every passing row, built
    -- before the first vector is read.
    FOR i IN 1 .. array_length(tables, 1) LOOP
      CONTINUE WHEN NOT tables[i][1] = ANY (p_tables);
      part := format($q$
      (SELECT e.entity_type, e.entity_id, e.embedding::vector(%%1$s) <=> $1::vector(%%1$s) AS distance
      FROM "embeddings" e JOIN %1$I x ON x.id = e.entity_id$q$, tables[i][1]) || scope || format($q$
        AND e.entity_type = %1$L AND %2$s
      ORDER BY e.embedding::vector(%%1$s) <=> $1::vector(%%1$s)
      LIMIT $6)$q$, tables[i][1], format(cond || corpus_check, tables[i][2]));
      nearest := CASE WHEN nearest IS NULL THEN part ELSE nearest || ' UNION ALL ' || part END;
      parts := parts + 1;
    END LOOP;
    -- One table's scan is the answer as it is: a query around it only costs planning (0.15 ms).
    IF parts <> 1 THEN
      nearest := 'SELECT * FROM (' || nearest || ') n ORDER BY n.distance LIMIT $6';
    END IF;
  END IF;
  RETURN format(nearest, p_dimension);
END
$fn$;
