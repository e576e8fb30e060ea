-- CreateEnum
CREATE TYPE "InboundEmailStatus" AS ENUM ('RECEIVED', 'PROCESSING', 'AWAITING_APPROVAL', 'DONE', 'ESCALATED', 'FAILED');

-- CreateEnum
CREATE TYPE "EmailDraftStatus" AS ENUM ('PENDING', 'SENT', 'DISCARDED');

-- AlterTable
ALTER TABLE "llm_calls" ADD COLUMN     "call_type" TEXT NOT NULL DEFAULT 'agent';

-- CreateTable
CREATE TABLE "inbound_emails" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "in_reply_to" TEXT,
    "references" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "from_address" TEXT NOT NULL,
    "from_name" TEXT,
    "to_address" TEXT,
    "subject" TEXT,
    "text" TEXT NOT NULL,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "raw" TEXT,
    "source" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "rule" TEXT,
    "profile" TEXT,
    "status" "InboundEmailStatus" NOT NULL DEFAULT 'RECEIVED',
    "classification" JSONB,
    "session_id" UUID,
    "turn_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_emails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_events" (
    "id" BIGSERIAL NOT NULL,
    "email_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_drafts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "email_id" UUID NOT NULL,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" "EmailDraftStatus" NOT NULL DEFAULT 'PENDING',
    "author" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_drafts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sent_replies" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "email_id" UUID NOT NULL,
    "draft_id" UUID,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "in_reply_to" TEXT NOT NULL,
    "references" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sent_replies_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "inbound_emails_tenant_id_message_id_key" ON "inbound_emails"("tenant_id", "message_id");

-- CreateIndex
CREATE INDEX "inbound_emails_tenant_id_created_at_idx" ON "inbound_emails"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "inbound_emails_tenant_id_thread_id_idx" ON "inbound_emails"("tenant_id", "thread_id");

-- CreateIndex
CREATE INDEX "inbound_emails_session_id_idx" ON "inbound_emails"("session_id");

-- CreateIndex
CREATE INDEX "email_events_email_id_id_idx" ON "email_events"("email_id", "id");

-- CreateIndex
CREATE INDEX "email_drafts_email_id_idx" ON "email_drafts"("email_id");

-- CreateIndex
CREATE INDEX "sent_replies_email_id_idx" ON "sent_replies"("email_id");

-- AddForeignKey
ALTER TABLE "email_events" ADD CONSTRAINT "email_events_email_id_fkey" FOREIGN KEY ("email_id") REFERENCES "inbound_emails"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_drafts" ADD CONSTRAINT "email_drafts_email_id_fkey" FOREIGN KEY ("email_id") REFERENCES "inbound_emails"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sent_replies" ADD CONSTRAINT "sent_replies_email_id_fkey" FOREIGN KEY ("email_id") REFERENCES "inbound_emails"("id") ON DELETE CASCADE ON UPDATE CASCADE;
