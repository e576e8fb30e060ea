-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "corpus_id" UUID,
ADD COLUMN     "document_id" UUID;

-- CreateTable
CREATE TABLE "corpora" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "description" TEXT,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "corpora_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "corpus_description_versions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "corpus_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "author_id" TEXT,
    "agent_name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "corpus_description_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "corpus_documents" (
    "corpus_id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "corpus_documents_pkey" PRIMARY KEY ("corpus_id","document_id")
);

-- CreateTable
CREATE TABLE "document_notes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "document_id" UUID NOT NULL,
    "corpus_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "document_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "note_revisions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "note_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "author_id" TEXT,
    "agent_name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "note_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document_summaries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "document_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "author_id" TEXT,
    "agent_name" TEXT,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "document_summaries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "annotations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "document_id" UUID NOT NULL,
    "corpus_id" UUID,
    "label" TEXT NOT NULL,
    "start" INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    "page" INTEGER,
    "text" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "annotations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "corpora_tenant_id_user_id_created_at_id_idx" ON "corpora"("tenant_id", "user_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "corpus_description_versions_corpus_id_version_key" ON "corpus_description_versions"("corpus_id", "version");

-- CreateIndex
CREATE INDEX "corpus_documents_document_id_idx" ON "corpus_documents"("document_id");

-- CreateIndex
CREATE INDEX "document_notes_document_id_corpus_id_idx" ON "document_notes"("document_id", "corpus_id");

-- CreateIndex
CREATE UNIQUE INDEX "note_revisions_note_id_version_key" ON "note_revisions"("note_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "document_summaries_document_id_version_key" ON "document_summaries"("document_id", "version");

-- CreateIndex
CREATE INDEX "annotations_document_id_corpus_id_label_idx" ON "annotations"("document_id", "corpus_id", "label");

-- CreateIndex
CREATE INDEX "annotations_corpus_id_label_idx" ON "annotations"("corpus_id", "label");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "resources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "corpora"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "corpus_description_versions" ADD CONSTRAINT "corpus_description_versions_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "corpora"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "corpus_documents" ADD CONSTRAINT "corpus_documents_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "corpora"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "corpus_documents" ADD CONSTRAINT "corpus_documents_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_notes" ADD CONSTRAINT "document_notes_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_notes" ADD CONSTRAINT "document_notes_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "corpora"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "note_revisions" ADD CONSTRAINT "note_revisions_note_id_fkey" FOREIGN KEY ("note_id") REFERENCES "document_notes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_summaries" ADD CONSTRAINT "document_summaries_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "annotations" ADD CONSTRAINT "annotations_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "resources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "annotations" ADD CONSTRAINT "annotations_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "corpora"("id") ON DELETE CASCADE ON UPDATE CASCADE;
