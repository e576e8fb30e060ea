/**
 * The routing seed's pharmacy tools as an MCP server (stdio) over the small data set beside it
 * (drugs.json), so that examples/pharmacy/routing.yaml's profile runs end to end:
 *
 *   search_drugs {query, limit?}                         medicines by name or substance, with stock per pharmacy
 *   manage_reservation {action, drug_name, pharmacy_id?} create / check / cancel a reservation (kept while the server runs)
 *   web_search {query}                                   what a medicine is (the data set's leaflets)
 *
 * Run: MCP_SERVERS='{"pharmacy":{"command":"node","args":["--import","tsx","examples/pharmacy/pharmacy-mcp-server.ts"]}}'
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

interface Drug {
  name: string;
  substance: string;
  form: string;
  prescription: boolean;
  stock: Record<string, number>;
}
interface DataSet {
  pharmacies: { id: string; name: string; city: string }[];
  drugs: Drug[];
  leaflets: Record<string, string>;
}

const data = JSON.parse(readFileSync(new URL('drugs.json', import.meta.url), 'utf8')) as DataSet;
const reservations = new Map<string, { drug: string; pharmacyId: string }>();
const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
const failure = (message: string) => ({ ...json({ error: message }), isError: true });
const matching = (query: string) => {
  const q = query.toLowerCase();
  return data.drugs.filter((d) => d.name.toLowerCase().includes(q) || d.substance.includes(q) || q.includes(d.substance));
};

const server = new McpServer({ name: 'pharmacy', version: '1.0.0' });

server.registerTool(
  'search_drugs',
  {
    description: 'Search the drug availability database: medicines matching a name or active substance, with stock per pharmacy.',
    inputSchema: { query: z.string().min(1).describe('Medicine name or active substance'), limit: z.number().int().min(1).max(20).default(5) },
  },
  async ({ query, limit }) =>
    json({
      drugs: matching(query)
        .slice(0, limit)
        .map((d) => ({
          ...d,
          stock: data.pharmacies.map((p) => ({ pharmacy_id: p.id, pharmacy: `${p.name} (${p.city})`, in_stock: d.stock[p.id] ?? 0 })),
        })),
    }),
);

server.registerTool(
  'manage_reservation',
  {
    description: 'Create, check or cancel a reservation of a medicine at a pharmacy.',
    inputSchema: {
      action: z.enum(['create', 'check', 'cancel']),
      drug_name: z.string().min(1),
      pharmacy_id: z.string().optional().describe('Needed to create'),
    },
  },
  async ({ action, drug_name, pharmacy_id }) => {
    const drug = data.drugs.find((d) => d.name.toLowerCase() === drug_name.toLowerCase()) ?? matching(drug_name)[0];
    if (!drug) return failure(`No medicine "${drug_name}"`);
    const key = drug.name;
    if (action === 'check') return json({ reservation: reservations.get(key) ?? null });
    if (action === 'cancel') return json({ cancelled: reservations.delete(key) });
    if (!pharmacy_id) return failure('pharmacy_id is needed to create a reservation');
    if ((drug.stock[pharmacy_id] ?? 0) < 1) return failure(`${drug.name} is not in stock at ${pharmacy_id}`);
    reservations.set(key, { drug: drug.name, pharmacyId: pharmacy_id });
    return json({ status: 'reserved', drug: drug.name, pharmacy_id });
  },
);

server.registerTool(
  'web_search',
  { description: 'Look up general information about a medicine (what it is, what it is for).', inputSchema: { query: z.string().min(1) } },
  async ({ query }) => {
    const q = query.toLowerCase();
    const hits = Object.entries(data.leaflets)
      .filter(([substance]) => q.includes(substance) || matching(query).some((d) => d.substance === substance))
      .map(([substance, text]) => ({ substance, text }));
    return json({ results: hits });
  },
);

await server.connect(new StdioServerTransport());
