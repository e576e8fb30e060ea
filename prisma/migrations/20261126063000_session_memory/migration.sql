-- AlterTable
ALTER TABLE "llm_calls" ADD COLUMN     "request" TEXT;

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "is_eval" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "is_eval" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "client_id" TEXT,
ADD COLUMN     "ephemeral" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "is_eval" BOOLEAN NOT NULL DEFAULT false;
