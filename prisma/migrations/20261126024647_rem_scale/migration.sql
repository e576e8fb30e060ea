-- DropIndex
DROP INDEX "kv_store_content_summary_trgm_idx";

-- CreateIndex
CREATE INDEX "entities_tenant_id_key_idx" ON "entities"("tenant_id", "key");

-- CreateIndex
CREATE INDEX "moments_tenant_id_key_idx" ON "moments"("tenant_id", "key");

-- CreateIndex
CREATE INDEX "resources_tenant_id_key_idx" ON "resources"("tenant_id", "key");
