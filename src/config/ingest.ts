import { z } from 'zod';

/** Files ingested as chunked resources (ingestFile, `remgraph ingest_file`). */
export const ingestSettings = z
  .object({
    /** Largest file ingestFile / ingest_file accept (multipart requests may be this much larger than MAX_REQUEST_BYTES). */
    INGEST_MAX_FILE_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(10 * 1024 * 1024),
    /** Longest chunk of an ingested file, in characters. */
    INGEST_CHUNK_CHARS: z.coerce.number().int().min(200).max(100_000).default(2000),
    /** Characters consecutive chunks of a section share (at most half a chunk). */
    INGEST_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).max(10_000).default(200),
  })
  .transform((e) => ({
    maxBytes: e.INGEST_MAX_FILE_BYTES,
    maxChars: e.INGEST_CHUNK_CHARS,
    overlapChars: Math.min(e.INGEST_CHUNK_OVERLAP_CHARS, Math.floor(e.INGEST_CHUNK_CHARS / 2)),
  }));
