-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "span_id" TEXT,
ADD COLUMN     "trace_id" TEXT;
