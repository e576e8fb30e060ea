-- AlterTable
ALTER TABLE "entities" ADD COLUMN     "source_job_id" UUID,
ADD COLUMN     "source_turn_id" UUID;

-- AlterTable
ALTER TABLE "moments" ADD COLUMN     "source_job_id" UUID,
ADD COLUMN     "source_turn_id" UUID;

-- AlterTable
ALTER TABLE "resources" ADD COLUMN     "source_job_id" UUID,
ADD COLUMN     "source_turn_id" UUID;

-- CreateIndex
CREATE INDEX "entities_source_turn_id_idx" ON "entities"("source_turn_id");

-- CreateIndex
CREATE INDEX "moments_source_turn_id_idx" ON "moments"("source_turn_id");

-- CreateIndex
CREATE INDEX "resources_source_turn_id_idx" ON "resources"("source_turn_id");

-- AddForeignKey
ALTER TABLE "resources" ADD CONSTRAINT "resources_source_turn_id_fkey" FOREIGN KEY ("source_turn_id") REFERENCES "turns"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "entities" ADD CONSTRAINT "entities_source_turn_id_fkey" FOREIGN KEY ("source_turn_id") REFERENCES "turns"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "moments" ADD CONSTRAINT "moments_source_turn_id_fkey" FOREIGN KEY ("source_turn_id") REFERENCES "turns"("id") ON DELETE SET NULL ON UPDATE CASCADE;
