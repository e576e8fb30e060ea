/** Datasets of golden examples (input, optional expected answer, tags): CRUD, scoped to their owner. */
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy } from '../auth/scope.js';
import type { Dataset, PrismaClient } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { parseInput } from '../validation.js';

const MAX_EXAMPLES = 1000;

const example = z.object({
  input: z.string().trim().min(1, 'must not be empty').max(100_000),
  expected: z.string().max(100_000).nullish(),
  tags: z.array(z.string().trim().min(1).max(100)).max(50).nullish(),
});
const examples = z.array(example).max(MAX_EXAMPLES, `at most ${MAX_EXAMPLES} examples`);
const createInput = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  description: z.string().max(2000).nullish(),
  examples: examples.nullish(),
});

export type ExampleInput = z.input<typeof example>;
export type CreateDatasetInput = z.input<typeof createInput>;

export async function createDataset(prisma: PrismaClient, ctx: AgentContext, raw: CreateDatasetInput): Promise<Dataset> {
  const input = parseInput(createInput, raw, ['input']);
  return prisma.dataset.create({
    data: {
      name: input.name,
      description: input.description ?? null,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      examples: { create: (input.examples ?? []).map((e, i) => ({ ord: i + 1, input: e.input, expected: e.expected ?? null, tags: e.tags ?? [] })) },
    },
  });
}

/** Appends examples after the dataset's last one. */
export async function addExamples(prisma: PrismaClient, ctx: AgentContext, datasetId: string, raw: ExampleInput[]): Promise<Dataset> {
  const added = parseInput(examples.min(1, 'give at least one example'), raw, ['examples']);
  return prisma.$transaction(async (tx) => {
    const dataset = await tx.dataset.findFirst({ where: { id: datasetId, ...ownedBy(ctx) } });
    if (!dataset) throw new NotFoundError('Dataset');
    const last = await tx.example.aggregate({ where: { datasetId }, _max: { ord: true }, _count: true });
    if (last._count + added.length > MAX_EXAMPLES)
      throw new ValidationError(`examples: a dataset holds at most ${MAX_EXAMPLES} examples`, [
        { path: ['examples'], message: `at most ${MAX_EXAMPLES} per dataset` },
      ]);
    await tx.example.createMany({
      data: added.map((e, i) => ({ datasetId, ord: (last._max.ord ?? 0) + i + 1, input: e.input, expected: e.expected ?? null, tags: e.tags ?? [] })),
    });
    return dataset;
  });
}

/** Deletes the dataset with its examples and experiments; returns it as it was. */
export async function deleteDataset(prisma: PrismaClient, ctx: AgentContext, id: string): Promise<Dataset> {
  const dataset = await prisma.dataset.findFirst({ where: { id, ...ownedBy(ctx) } });
  if (!dataset) throw new NotFoundError('Dataset');
  await prisma.dataset.delete({ where: { id } });
  return dataset;
}
