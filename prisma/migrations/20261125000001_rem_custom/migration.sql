-- Hand-written objects Prisma cannot express. Names end in _custom so that
-- `remgraph migrate:create` never generates statements that drop them.

-- Natural-language keys are unique per (tenant, user scope); user_id NULL is the shared scope.
CREATE UNIQUE INDEX "resources_scope_key_custom" ON "resources" ("tenant_id", COALESCE("user_id", ''), "key");
CREATE UNIQUE INDEX "entities_scope_key_custom" ON "entities" ("tenant_id", COALESCE("user_id", ''), "key");
CREATE UNIQUE INDEX "moments_scope_key_custom" ON "moments" ("tenant_id", COALESCE("user_id", ''), "key");

-- Registered agent versions are immutable and numbered per (tenant, owner, name).
CREATE UNIQUE INDEX "agents_scope_name_version_custom" ON "agents" ("tenant_id", COALESCE("user_id", ''), "name", "version");

-- Vectors of any dimension share one table; HNSW needs a fixed dimension, so there is one partial
-- index per supported dimension (384: the offline hashed embedder; 1536: OpenAI text-embedding-3-small).
CREATE INDEX "embeddings_hnsw_384_custom" ON "embeddings"
  USING hnsw (("embedding"::vector(384)) vector_cosine_ops) WHERE "dimension" = 384;
CREATE INDEX "embeddings_hnsw_1536_custom" ON "embeddings"
  USING hnsw (("embedding"::vector(1536)) vector_cosine_ops) WHERE "dimension" = 1536;

-- kv_store mirrors the key, summary and edges of every REM row, whichever path wrote it.
CREATE FUNCTION "rem_kv_sync_custom"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "kv_store" WHERE "entity_type" = TG_TABLE_NAME AND "entity_id" = OLD."id";
    RETURN OLD;
  END IF;
  INSERT INTO "kv_store" ("entity_type", "entity_id", "entity_key", "content_summary", "graph_edges",
                          "tenant_id", "user_id", "updated_at")
  VALUES (TG_TABLE_NAME, NEW."id", NEW."key", left(COALESCE(NEW."summary", NEW."content", NEW."name"), 1000),
          NEW."graph_edges", NEW."tenant_id", NEW."user_id", now())
  ON CONFLICT ("entity_type", "entity_id") DO UPDATE SET
    "entity_key" = EXCLUDED."entity_key",
    "content_summary" = EXCLUDED."content_summary",
    "graph_edges" = EXCLUDED."graph_edges",
    "tenant_id" = EXCLUDED."tenant_id",
    "user_id" = EXCLUDED."user_id",
    "updated_at" = EXCLUDED."updated_at";
  RETURN NEW;
END
$$;

CREATE TRIGGER "resources_kv_sync_custom" AFTER INSERT OR UPDATE OR DELETE ON "resources"
  FOR EACH ROW EXECUTE FUNCTION "rem_kv_sync_custom"();
CREATE TRIGGER "entities_kv_sync_custom" AFTER INSERT OR UPDATE OR DELETE ON "entities"
  FOR EACH ROW EXECUTE FUNCTION "rem_kv_sync_custom"();
CREATE TRIGGER "moments_kv_sync_custom" AFTER INSERT OR UPDATE OR DELETE ON "moments"
  FOR EACH ROW EXECUTE FUNCTION "rem_kv_sync_custom"();
