import type { Schemas } from '@workflow-service/client';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Pager } from '../components/Pager';
import { Status } from '../components/Status';
import { Table } from '../components/Table';
import { Time } from '../components/Time';
import { usd } from '../format';
import { usePaged } from '../paged';
import { href } from '../router';
import { loadHarnesses, NewRunForm } from './NewRun';

type Run = Schemas['Run'];
type RunStatus = Run['status'];

const STATUSES: RunStatus[] = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'];

/** Runs: newest first, filtered by status and harness, and "New run". */
export function RunsPage() {
  const [status, setStatus] = useState<RunStatus | ''>('');
  const [harnessId, setHarnessId] = useState('');
  const [harnesses, setHarnesses] = useState<Schemas['HarnessListEntry'][]>([]);
  const [creating, setCreating] = useState(false);
  const runs = usePaged<Run>(
    async (cursor) => {
      const query = { limit: 20, cursor, status: status || undefined, harness_id: harnessId || undefined };
      const { data } = await api.GET('/v2/runs', { params: { query } });
      return { items: data.data, next: data.page.next_cursor };
    },
    [status, harnessId],
  );
  useEffect(() => {
    loadHarnesses().then(setHarnesses, () => {});
  }, []);
  const harnessName = (id: string) => harnesses.find((h) => h.id === id)?.name ?? id;

  return (
    <section>
      <div class="heading-row">
        <h2>Runs</h2>
        <button type="button" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New run
        </button>
      </div>
      {creating && <NewRunForm onCancel={() => setCreating(false)} />}
      <div class="row filters">
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as RunStatus | '')}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Harness
          <select value={harnessId} onChange={(e) => setHarnessId(e.currentTarget.value)}>
            <option value="">Any harness</option>
            {harnesses.map((h) => (
              <option value={h.id}>{h.name}</option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" onClick={runs.reload}>
          Refresh
        </button>
      </div>
      <Table
        caption="Runs, newest first"
        rows={runs.items}
        columns={[
          {
            label: 'Run',
            cell: (r) => (
              <a class="mono" href={href('runs', r.id)}>
                {r.id}
              </a>
            ),
          },
          { label: 'Status', cell: (r) => <Status value={r.status} /> },
          { label: 'Harness', cell: (r) => harnessName(r.harness_id) },
          { label: 'Created', cell: (r) => <Time value={r.created_at} /> },
          { label: 'Cost', num: true, cell: (r) => usd(r.usage.cost_micro_usd) },
        ]}
      />
      <Pager list={runs} empty={status || harnessId ? 'No run matches these filters.' : 'No runs yet: start one with “New run”.'} />
    </section>
  );
}
