-- CreateEnum
CREATE TYPE "RoutedBy" AS ENUM ('EXPLICIT', 'HEADER', 'RULE', 'CLASSIFIER', 'SESSION', 'DEFAULT');

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "active_agent" TEXT,
ADD COLUMN     "routing" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "routed_by" "RoutedBy",
ADD COLUMN     "routing_rule" TEXT;
