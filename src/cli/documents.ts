import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request } from './client.js';
import {
  CliAddDocumentsToCorpusDocument,
  CliCorporaDocument,
  CliCorpusDocument,
  CliCreateCorpusDocument,
  CliDocumentDocument,
  CliDocumentsDocument,
} from './generated/graphql.js';
import { positiveInt } from './flags.js';
import { printRecord, printRows } from './output.js';

export const DOCUMENTS_USAGE = `remgraph documents list [--corpus C] [--first N]  your documents (ingested files), newest first
remgraph documents show <id>                     one document: title, pages, summary and its text`;

export const CORPUS_USAGE = `remgraph corpus create <name> [--description MD]  a new corpus; prints its id
remgraph corpus add <corpus-id> <document-id>…    adds documents to your corpus
remgraph corpus list [--first N]                  your corpora and the tenant's shared ones
remgraph corpus show <id>                          a corpus and its documents`;

export async function documentsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...connectionOptions, first: { type: 'string' }, corpus: { type: 'string' } },
    allowPositionals: true,
  });
  const connection = connectionFrom(values);
  const [action, id, ...rest] = positionals;
  if (action === 'list' && !id) {
    const first = values.first === undefined ? 20 : positiveInt('first', values.first);
    const { documents } = await request(connection, CliDocumentsDocument, { first, corpusId: values.corpus });
    printRows(
      process.stdout,
      documents.edges.map((e) => e.node),
      ['id', 'title', 'key', 'pageCount', 'length'],
    );
    return 0;
  }
  if (action === 'show' && id && !rest.length) {
    const { document } = await request(connection, CliDocumentDocument, { id });
    const { text, ...fields } = document;
    if (!process.stdout.isTTY) {
      process.stdout.write(`${JSON.stringify(document)}\n`);
      return 0;
    }
    printRecord(process.stdout, fields);
    process.stdout.write(`\n${text}\n`);
    return 0;
  }
  throw new CliError(`documents: expected list or show <id>\n\n${DOCUMENTS_USAGE}`);
}

export async function corpusCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...connectionOptions, first: { type: 'string' }, description: { type: 'string' } },
    allowPositionals: true,
  });
  const connection = connectionFrom(values);
  const [action, ...rest] = positionals;
  if (action === 'create' && rest.length === 1) {
    const created = (await request(connection, CliCreateCorpusDocument, { input: { name: rest[0]!, description: values.description } })).createCorpus;
    if (created.__typename !== 'CreateCorpusSuccess') throw new CliError(`${created.code}: ${created.message}`);
    printRecord(process.stdout, created.corpus);
    return 0;
  }
  if (action === 'add' && rest.length >= 2) {
    const [corpusId, ...documentIds] = rest;
    const added = (await request(connection, CliAddDocumentsToCorpusDocument, { corpusId: corpusId!, documentIds })).addDocumentsToCorpus;
    if (added.__typename !== 'AddDocumentsSuccess') throw new CliError(`${added.code}: ${added.message}`);
    printRecord(process.stdout, { id: added.corpus.id, name: added.corpus.name, documents: added.corpus.documents.totalCount });
    return 0;
  }
  if (action === 'list' && !rest.length) {
    const first = values.first === undefined ? 20 : positiveInt('first', values.first);
    const { corpora } = await request(connection, CliCorporaDocument, { first });
    printRows(
      process.stdout,
      corpora.edges.map(({ node }) => ({ id: node.id, name: node.name, documents: node.documents.totalCount, description: node.description })),
      ['id', 'name', 'documents', 'description'],
    );
    return 0;
  }
  if (action === 'show' && rest.length === 1) {
    const { corpus } = await request(connection, CliCorpusDocument, { id: rest[0]! });
    const documents = corpus.documents.edges.map((e) => e.node);
    if (!process.stdout.isTTY) {
      process.stdout.write(`${JSON.stringify({ ...corpus, documents })}\n`);
      return 0;
    }
    printRecord(process.stdout, { id: corpus.id, name: corpus.name, description: corpus.description, documents: corpus.documents.totalCount });
    process.stdout.write('\n');
    printRows(process.stdout, documents, ['id', 'title', 'key']);
    return 0;
  }
  throw new CliError(`corpus: expected create, add, list or show\n\n${CORPUS_USAGE}`);
}
