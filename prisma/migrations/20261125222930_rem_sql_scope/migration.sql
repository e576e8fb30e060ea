-- REM SQL mode: the caller's query runs as rem_reader_custom, which may read only the scoped views
-- in schema rem_sql_custom. The views show the rows of the tenant and user named by the
-- per-transaction settings remgraph.tenant_id / remgraph.user_id (set by the server before it
-- switches role), so the scope is applied by the database, not by rewriting the caller's SQL.
-- security_barrier keeps the caller's own predicates from seeing rows before the scope filter.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rem_reader_custom') THEN
    CREATE ROLE "rem_reader_custom" NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- roles are cluster-wide: another database of the cluster created it meanwhile
END
$$;

-- A non-superuser server role must be a member to SET ROLE (superusers need nothing).
DO $$
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('GRANT "rem_reader_custom" TO %I', current_user);
  END IF;
END
$$;

CREATE SCHEMA "rem_sql_custom";

CREATE VIEW "rem_sql_custom"."resources" WITH (security_barrier) AS
  SELECT "id", "key", "name", "uri", "content", "summary", "category", "tags", "graph_edges", "metadata",
         "tenant_id", "user_id", "created_at", "updated_at"
  FROM "public"."resources"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

CREATE VIEW "rem_sql_custom"."entities" WITH (security_barrier) AS
  SELECT "id", "key", "name", "entity_type", "uri", "content", "summary", "extracted_data", "tags", "graph_edges",
         "metadata", "tenant_id", "user_id", "created_at", "updated_at"
  FROM "public"."entities"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

CREATE VIEW "rem_sql_custom"."moments" WITH (security_barrier) AS
  SELECT "id", "key", "name", "summary", "content", "moment_type", "starts_at", "ends_at", "session_id", "tags",
         "graph_edges", "metadata", "tenant_id", "user_id", "created_at", "updated_at"
  FROM "public"."moments"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

CREATE VIEW "rem_sql_custom"."kv_store" WITH (security_barrier) AS
  SELECT "entity_type", "entity_id", "entity_key", "content_summary", "graph_edges", "tenant_id", "user_id", "updated_at"
  FROM "public"."kv_store"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

-- The vectors themselves are left out: they are large and say nothing to a reader.
CREATE VIEW "rem_sql_custom"."embeddings" WITH (security_barrier) AS
  SELECT "id", "entity_type", "entity_id", "field", "model", "dimension", "content_hash", "tenant_id", "user_id", "created_at"
  FROM "public"."embeddings"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

GRANT USAGE ON SCHEMA "rem_sql_custom" TO "rem_reader_custom";
GRANT SELECT ON ALL TABLES IN SCHEMA "rem_sql_custom" TO "rem_reader_custom";

-- Embeddings belong to a row of resources, entities or moments (no foreign key: the reference is
-- polymorphic), so they go with it, whichever path deleted the row.
CREATE FUNCTION "rem_embeddings_cleanup_custom"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "embeddings" WHERE "entity_type" = TG_TABLE_NAME AND "entity_id" = OLD."id";
  RETURN OLD;
END
$$;

CREATE TRIGGER "resources_embeddings_cleanup_custom" AFTER DELETE ON "resources"
  FOR EACH ROW EXECUTE FUNCTION "rem_embeddings_cleanup_custom"();
CREATE TRIGGER "entities_embeddings_cleanup_custom" AFTER DELETE ON "entities"
  FOR EACH ROW EXECUTE FUNCTION "rem_embeddings_cleanup_custom"();
CREATE TRIGGER "moments_embeddings_cleanup_custom" AFTER DELETE ON "moments"
  FOR EACH ROW EXECUTE FUNCTION "rem_embeddings_cleanup_custom"();

