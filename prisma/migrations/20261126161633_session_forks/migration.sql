-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "forked_at_message_id" UUID,
ADD COLUMN     "forked_from_id" UUID;

-- CreateIndex
CREATE INDEX "sessions_forked_from_id_idx" ON "sessions"("forked_from_id");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_forked_from_id_fkey" FOREIGN KEY ("forked_from_id") REFERENCES "sessions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
