import type { Schemas } from '@workflow-service/client';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Pager } from '../components/Pager';
import { Status } from '../components/Status';
import { Table } from '../components/Table';
import { Time } from '../components/Time';
import { usd } from '../format';
import { usePaged } from '../paged';
import { href } from '../router';

type WorkflowRequest = Schemas['WorkflowRequest'];
type RequestStatus = WorkflowRequest['status'];

const STATUSES: RequestStatus[] = ['pending', 'in_progress', 'waiting', 'completed', 'failed', 'stopped'];

/** Workflow requests: the history, newest first, by status. */
export function RequestsPage() {
  const [status, setStatus] = useState<RequestStatus | ''>('');
  const requests = usePaged<WorkflowRequest>(
    async (cursor) => {
      const { data } = await api.GET('/v1/workflow-requests', { params: { query: { limit: 20, cursor, status: status || undefined } } });
      return { items: data.workflow_requests, next: data.next_cursor };
    },
    [status],
  );
  return (
    <section>
      <h2>Workflow requests</h2>
      <div class="row filters">
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as RequestStatus | '')}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option value={s}>{s.replace('_', ' ')}</option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" onClick={requests.reload}>
          Refresh
        </button>
      </div>
      <Table
        caption="Workflow requests, newest first"
        rows={requests.items}
        columns={[
          {
            label: 'Request',
            cell: (r) => (
              <a class="mono" href={href('requests', r.id)}>
                {r.id}
              </a>
            ),
          },
          { label: 'Status', cell: (r) => <Status value={r.status} /> },
          { label: 'Workflow', cell: (r) => <span class="mono">{r.workflow_id}</span> },
          { label: 'Created', cell: (r) => <Time value={r.created_at} /> },
          { label: 'Cost', num: true, cell: (r) => usd(r.usage.cost_micro_usd) },
        ]}
      />
      <Pager list={requests} empty={status ? 'No workflow request has this status.' : 'No workflow requests yet.'} />
    </section>
  );
}
