-- CreateEnum
CREATE TYPE "SentReplyStatus" AS ENUM ('SENDING', 'SENT', 'UNKNOWN');

-- AlterTable
ALTER TABLE "sent_replies" ADD COLUMN     "status" "SentReplyStatus" NOT NULL DEFAULT 'SENT';

-- An email is answered once: of two sends decided at the same instant (two approvals of send_reply,
-- a draft sent while the agent replies), the database lets one row in. By hand: a unique index on
-- the foreign key would make Prisma's relation one-to-one.
CREATE UNIQUE INDEX "sent_replies_one_per_email_custom" ON "sent_replies" ("email_id");
