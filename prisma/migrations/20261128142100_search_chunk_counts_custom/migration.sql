-- CreateTable
CREATE TABLE "corpus_chunk_counts" (
    "corpus_id" UUID NOT NULL,
    "owner" TEXT NOT NULL,
    "chunks" INTEGER NOT NULL,

    CONSTRAINT "corpus_chunk_counts_pkey" PRIMARY KEY ("corpus_id","owner")
);

-- CreateTable
CREATE TABLE "document_chunk_counts" (
    "tenant_id" TEXT NOT NULL,
    "parent" TEXT NOT NULL,
    "chunks" INTEGER NOT NULL,

    CONSTRAINT "document_chunk_counts_pkey" PRIMARY KEY ("tenant_id","parent")
);

-- AddForeignKey
ALTER TABLE "corpus_chunk_counts" ADD CONSTRAINT "corpus_chunk_counts_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "corpora"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- SEARCH within a corpus or files reads how many chunks its scope holds instead of counting its
-- rows up to p_exact_rows before each search (issue 39): triggers keep each file's chunk count,
-- whether or not its row exists yet, and each corpus's by owner, as chunks, files and memberships
-- change. similarity_search gets its chunks' text and files from the same statement.

CREATE OR REPLACE FUNCTION "rem_chunk_counts_custom"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  -- The statement's resources, +1 for a row written and -1 for a row's former state (an UPDATE has
  -- both, and nets out unless it moved the row to another file). Only the transition tables of the
  -- event that fired exist.
  changed constant text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT tenant_id, user_id, metadata, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT tenant_id, user_id, metadata, -1 AS sign FROM old_rows'
    ELSE 'SELECT tenant_id, user_id, metadata, 1 AS sign FROM new_rows UNION ALL SELECT tenant_id, user_id, metadata, -1 FROM old_rows' END;
BEGIN
  -- Each file's count, then the counts of the corpora holding the file. A file deleted in this
  -- statement has left its corpora already: rem_document_chunk_counts_custom took its chunks out.
  EXECUTE format($q$
    WITH delta AS (
      SELECT r.tenant_id, COALESCE(r.user_id, '') AS owner, r.metadata->>'parent' AS key, sum(r.sign)::int AS n
      FROM (%s) r WHERE r.metadata->>'parent' IS NOT NULL
      GROUP BY 1, 2, 3 HAVING sum(r.sign) <> 0),
    files AS (
      INSERT INTO "document_chunk_counts" AS c ("tenant_id", "parent", "chunks")
      SELECT tenant_id, owner || ':' || key, n FROM delta
      ON CONFLICT ("tenant_id", "parent") DO UPDATE SET "chunks" = c."chunks" + EXCLUDED."chunks")
    UPDATE "corpus_chunk_counts" k SET "chunks" = k."chunks" + m.n
    FROM (SELECT cd.corpus_id, delta.owner, sum(delta.n)::int AS n
          FROM delta JOIN "resources" d ON d.tenant_id = delta.tenant_id AND d.key = delta.key AND COALESCE(d.user_id, '') = delta.owner
          JOIN "corpus_documents" cd ON cd.document_id = d.id
          GROUP BY 1, 2) m
    WHERE k.corpus_id = m.corpus_id AND k.owner = m.owner$q$, changed);
  RETURN NULL;
END
$fn$;

CREATE TRIGGER "resources_chunk_counts_insert_custom" AFTER INSERT ON "resources"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rem_chunk_counts_custom"();
CREATE TRIGGER "resources_chunk_counts_update_custom" AFTER UPDATE ON "resources"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rem_chunk_counts_custom"();
CREATE TRIGGER "resources_chunk_counts_delete_custom" AFTER DELETE ON "resources"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rem_chunk_counts_custom"();

CREATE OR REPLACE FUNCTION "rem_document_chunk_counts_custom"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- Before a file's row goes, while its memberships still name it: the cascade that deletes them
  -- runs after the row is gone, when rem_corpus_chunk_counts_custom can no longer tell its chunks.
  UPDATE "corpus_chunk_counts" k SET "chunks" = k."chunks" - c."chunks"
  FROM "corpus_documents" cd, "document_chunk_counts" c
  WHERE cd.document_id = OLD.id AND k.corpus_id = cd.corpus_id AND k.owner = COALESCE(OLD.user_id, '')
    AND c.tenant_id = OLD.tenant_id AND c.parent = COALESCE(OLD.user_id, '') || ':' || OLD.key;
  RETURN OLD;
END
$fn$;

-- Chunks have a parent; the rows that may be documents do not.
CREATE TRIGGER "resources_document_chunk_counts_custom" BEFORE DELETE ON "resources"
  FOR EACH ROW WHEN (OLD.metadata->>'parent' IS NULL) EXECUTE FUNCTION "rem_document_chunk_counts_custom"();

CREATE OR REPLACE FUNCTION "rem_corpus_chunk_counts_custom"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  changed constant text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT corpus_id, document_id, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT corpus_id, document_id, -1 AS sign FROM old_rows'
    ELSE 'SELECT corpus_id, document_id, 1 AS sign FROM new_rows UNION ALL SELECT corpus_id, document_id, -1 FROM old_rows' END;
BEGIN
  -- A document joining or leaving a corpus adds or takes out its chunks. A deleted document or
  -- corpus no longer joins: the document's trigger took its chunks out, the corpus's counts went with it.
  EXECUTE format($q$
    INSERT INTO "corpus_chunk_counts" AS k ("corpus_id", "owner", "chunks")
    SELECT m.corpus_id, COALESCE(d.user_id, ''), sum(m.sign * COALESCE(c.chunks, 0))::int
    FROM (%s) m JOIN "corpora" ON corpora.id = m.corpus_id
    JOIN "resources" d ON d.id = m.document_id
    LEFT JOIN "document_chunk_counts" c ON c.tenant_id = d.tenant_id AND c.parent = COALESCE(d.user_id, '') || ':' || d.key
    GROUP BY 1, 2
    ON CONFLICT ("corpus_id", "owner") DO UPDATE SET "chunks" = k."chunks" + EXCLUDED."chunks"$q$, changed);
  RETURN NULL;
END
$fn$;

CREATE TRIGGER "corpus_documents_chunk_counts_insert_custom" AFTER INSERT ON "corpus_documents"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rem_corpus_chunk_counts_custom"();
CREATE TRIGGER "corpus_documents_chunk_counts_update_custom" AFTER UPDATE ON "corpus_documents"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "rem_corpus_chunk_counts_custom"();
CREATE TRIGGER "corpus_documents_chunk_counts_delete_custom" AFTER DELETE ON "corpus_documents"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "rem_corpus_chunk_counts_custom"();

-- The counts of what is stored already.
INSERT INTO "document_chunk_counts" ("tenant_id", "parent", "chunks")
SELECT tenant_id, COALESCE(user_id, '') || ':' || (metadata->>'parent'), count(*)::int
FROM "resources" WHERE metadata->>'parent' IS NOT NULL GROUP BY 1, 2;
INSERT INTO "corpus_chunk_counts" ("corpus_id", "owner", "chunks")
SELECT cd.corpus_id, COALESCE(d.user_id, ''), COALESCE(sum(c.chunks), 0)::int
FROM "corpus_documents" cd JOIN "resources" d ON d.id = cd.document_id
LEFT JOIN "document_chunk_counts" c ON c.tenant_id = d.tenant_id AND c.parent = COALESCE(d.user_id, '') || ':' || d.key
GROUP BY 1, 2;

CREATE OR REPLACE FUNCTION "rem_search_custom"(p_tenant text, p_user text, p_vector text, p_dimension int, p_model text,
                                    p_tables text[], p_limit int, p_max_distance float8, p_filter jsonb,
                                    p_exact_rows int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text,
               distance float8, page int)
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
    -- and to check one row the HNSW scan yields (its parent and that parent's membership, by key and
    -- primary key; OFFSET 0 keeps it a check per row, never a hash of the whole corpus built first).
    rows_from := $c$"corpus_documents" cd JOIN "resources" d ON d.id = cd.document_id AND d.tenant_id = $4
        JOIN %1$I x ON (COALESCE(x.user_id, '') || ':' || (x.metadata->>'parent')) = COALESCE(d.user_id, '') || ':' || d.key
          AND cd.corpus_id = ($8->>'corpus')::uuid$c$;
    corpus_check := $c$ AND EXISTS (
        SELECT 1 FROM "resources" d JOIN "corpus_documents" cd ON cd.document_id = d.id
        WHERE d.tenant_id = x.tenant_id AND d.key = x.metadata->>'parent' AND d.user_id IS NOT DISTINCT FROM x.user_id
          AND cd.corpus_id = ($8->>'corpus')::uuid OFFSET 0)$c$;
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
      -- LEAST leaves out the NULL of a field the filter lacks.
      SELECT LEAST(CASE WHEN p_filter ? 'corpus' THEN (
                     SELECT COALESCE(sum(k.chunks), 0) FROM "corpus_chunk_counts" k
                     WHERE k.corpus_id = (p_filter->>'corpus')::uuid AND k.owner IN ('', COALESCE(p_user, ''))) END,
                   CASE WHEN p_filter ? 'parents' THEN (
                     SELECT COALESCE(sum(c.chunks), 0) FROM "document_chunk_counts" c
                     WHERE c.tenant_id = p_tenant AND c.parent = ANY (ARRAY(SELECT jsonb_array_elements_text(p_filter->'parents')))
                       AND (c.parent LIKE ':%' OR left(c.parent, length(p_user) + 1) = p_user || ':')) END)
        INTO passing_rows;
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
    END LOOP;
    nearest := 'SELECT * FROM (' || nearest || ') n ORDER BY n.distance LIMIT $6';
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
