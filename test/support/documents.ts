import { print } from 'graphql';
import { expect } from 'vitest';
import type { Caller } from './client.js';
import { AddDocumentsToCorpusDocument, CreateCorpusDocument, IngestDocumentDocument, type IngestDocumentMutation } from '../generated/graphql.js';

export interface IngestedDocument {
  /** The Document's global id. */
  id: string;
  key: string;
  chunks: number;
}

/** Ingests a file through the GraphQL multipart request, as a browser does, and names its Document. */
export async function ingestDocument(
  url: string,
  user: Caller,
  file: { name: string; bytes: Uint8Array | string; type?: string; key?: string },
): Promise<IngestedDocument> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: print(IngestDocumentDocument), variables: { file: null, key: file.key ?? null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([typeof file.bytes === 'string' ? file.bytes : Buffer.from(file.bytes)], { type: file.type ?? '' }), file.name);
  const res = await fetch(url, { method: 'POST', headers: { ...user.headers, 'x-graphql-yoga-csrf': '1' }, body: form });
  const body = (await res.json()) as { data?: IngestDocumentMutation; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  const result = body.data!.ingestFile;
  if (result.__typename !== 'IngestFileSuccess') throw new Error(JSON.stringify(result));
  const rowId = Buffer.from(result.resource.id, 'base64').toString().split(':')[1]!;
  return { id: Buffer.from(`Document:${rowId}`).toString('base64'), key: result.resource.key, chunks: result.chunks };
}

/** A new corpus of the user's holding these documents; its global id. */
export async function corpusOf(user: Caller, name: string, documentIds: string[], description?: string): Promise<string> {
  const created = (await user.data(CreateCorpusDocument, { input: { name, description } })).createCorpus;
  if (created.__typename !== 'CreateCorpusSuccess') throw new Error(JSON.stringify(created));
  if (documentIds.length) {
    const added = (await user.data(AddDocumentsToCorpusDocument, { corpusId: created.corpus.id, documentIds })).addDocumentsToCorpus;
    expect(added.__typename).toBe('AddDocumentsSuccess');
  }
  return created.corpus.id;
}
