-- CreateTable
CREATE TABLE "quota_starts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "quota_starts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "quota_starts_tenant_id_user_id_started_at_idx" ON "quota_starts"("tenant_id", "user_id", "started_at");
