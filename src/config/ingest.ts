import { z } from 'zod';

/** Files ingested as chunked resources (ingestFile, `remgraph ingest_file`). */
export const ingestSettings = z
  .object({
    INGEST_MAX_FILE_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(10 * 1024 * 1024)
      .describe(
        'largest file `ingestFile` / `ingest_file` accept (`PayloadTooLargeError` above); multipart requests may exceed `MAX_REQUEST_BYTES` by this much',
      ),
    INGEST_CHUNK_CHARS: z.coerce.number().int().min(200).max(100_000).default(2000).describe('longest chunk of an ingested file, in characters'),
    INGEST_CHUNK_OVERLAP_CHARS: z.coerce
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(200)
      .describe('characters consecutive chunks of a section share (at most half a chunk)'),
  })
  .transform((e) => ({
    maxBytes: e.INGEST_MAX_FILE_BYTES,
    maxChars: e.INGEST_CHUNK_CHARS,
    overlapChars: Math.min(e.INGEST_CHUNK_OVERLAP_CHARS, Math.floor(e.INGEST_CHUNK_CHARS / 2)),
  }));
