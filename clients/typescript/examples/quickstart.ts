// A run on the development model `local/echo`, streamed to its end. From the repository root:
//   BASE_URL=http://127.0.0.1:3000 TOKEN=wfs_... npx tsx clients/typescript/examples/quickstart.ts
import { createClient } from '@workflow-service/client';

const api = createClient({ baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:3000', token: process.env.TOKEN });
const files = [
  { path: 'harness.json', content: '{"model": "local/echo", "instructions": "prompt.md"}' },
  { path: 'prompt.md', content: 'Answer in one line.' },
];
const { data: harness } = await api.POST('/v2/harnesses', { body: { name: 'quickstart', files } });
const { data: machines } = await api.GET('/v1/machines', { params: { query: { limit: 1 } } });
const machine = machines.machines[0] ?? (await api.POST('/v1/machines', { body: { name: 'quickstart' } })).data;
const { data: run } = await api.POST('/v2/runs', { body: { harness_id: harness.id, machine_id: machine.id, input: 'Hello, world' } });
for await (const event of api.streamRunEvents(run.id)) console.log(event.seq, event.type, JSON.stringify(event.data));
const { data: ended } = await api.GET('/v2/runs/{id}', { params: { path: { id: run.id } } });
console.log(`run ${ended.id} ${ended.status}: ${ended.output}`);
