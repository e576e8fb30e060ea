-- CreateIndex
CREATE INDEX "turns_tenant_id_user_id_started_at_idx" ON "turns"("tenant_id", "user_id", "started_at");
