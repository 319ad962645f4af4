import type { Schemas } from '@workflow-service/client';
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { api, errorText } from '../api';
import { Facts } from '../components/Facts';
import { Interactions } from '../components/Interactions';
import { Problem } from '../components/Problem';
import { Status } from '../components/Status';
import { Table } from '../components/Table';
import { Time } from '../components/Time';
import { ENDED_REQUEST, json, usd } from '../format';
import { href } from '../router';

type WorkflowRequest = Schemas['WorkflowRequest'];
/** A node execution as the tree has it, or the part of one the live stream sent. */
type Node = Schemas['WorkflowStreamPayload']['node_execution'] & Partial<Schemas['NodeExecution']> & { id: string };

/**
 * A workflow request: its node executions, followed live (the listen stream:
 * a snapshot, then each change), its pending approvals, and "Stop request".
 */
export function RequestPage({ id }: { id: string }) {
  const [request, setRequest] = useState<WorkflowRequest>();
  const [nodes, setNodes] = useState<Node[]>([]);
  const [definition, setDefinition] = useState<Array<{ id: string; name: string }>>([]);
  const [error, setError] = useState<unknown>();
  const [streamError, setStreamError] = useState<unknown>();
  const [refresh, setRefresh] = useState(0);
  const [stopping, stopError, act] = useAction();

  const merge = (changed: Node[]) =>
    setNodes((shown) => {
      const next = [...shown];
      for (const node of changed) {
        const at = next.findIndex((n) => n.id === node.id);
        if (at < 0) next.push(node);
        else next[at] = { ...next[at], ...node };
      }
      return next;
    });

  const loadTree = async () => {
    const { data } = await api.GET('/v1/workflow-requests/{id}/tree', { params: { path: { id } } });
    setRequest(data.workflow_request);
    merge(data.node_executions as Node[]);
    return data.workflow_request;
  };

  useEffect(() => {
    const stop = new AbortController();
    loadTree().then(async (loaded) => {
      // Node names and their order, when the request runs its workflow's latest version.
      const { data } = await api.GET('/v1/workflows/{id}/versions/latest', { params: { path: { id: loaded.workflow_id } } });
      if (data.id === loaded.workflow_version_id) setDefinition(data.definition.nodes);
    }, setError);
    void (async () => {
      try {
        for await (const { data } of api.streamRequestEvents(id, { signal: stop.signal })) {
          if (data.node_execution) merge([data.node_execution as Node]);
          const changed = data.workflow_request;
          if (changed) {
            setRequest((shown) => shown && { ...shown, status: changed.status, error: changed.error ?? shown.error });
            if (ENDED_REQUEST.has(changed.status)) void loadTree().catch(() => {});
          }
          setRefresh((n) => n + 1);
        }
      } catch (failure) {
        if (!stop.signal.aborted) setStreamError(failure);
      }
    })();
    return () => stop.abort();
  }, [id]);

  const stopRequest = () =>
    act(async () => {
      const { data } = await api.POST('/v1/workflow-requests/{id}/stop', { params: { path: { id } } });
      setRequest(data);
    });

  const ended = request && ENDED_REQUEST.has(request.status);
  /** In the order of the definition; nodes it does not name (an older version's) last. */
  const position = (n: Node) => definition.findIndex((d) => d.id === n.node_id) >>> 0;
  const shown = [...nodes].sort((a, b) => position(a) - position(b));
  return (
    <section>
      <p class="crumb">
        <a href={href('requests')}>← Workflow requests</a>
      </p>
      <div class="heading-row">
        <h2>
          Workflow request <span class="mono">{id}</span>
        </h2>
        {request && !ended && (
          <button type="button" class="danger" disabled={stopping} onClick={stopRequest}>
            Stop request
          </button>
        )}
      </div>
      <Problem error={error || stopError} />
      {request && (
        <>
          <p class="run-status" role="status">
            Status <Status value={request.status} />
          </p>
          <Facts
            items={[
              ['Workflow', <span class="mono">{request.workflow_id}</span>],
              ['Version', <span class="mono">{request.workflow_version_id}</span>],
              ['Created', <Time value={request.created_at} />],
              ['Ended', <Time value={request.completed_at} />],
              ['Cost', usd(request.usage.cost_micro_usd)],
            ]}
          />
          <Problem error={request.error && `${request.error.code.replace(/_/g, ' ')}: ${request.error.message}`} />
          <Interactions requestId={id} refresh={refresh} />
        </>
      )}
      <Problem error={streamError && `Live updates stopped: ${errorText(streamError)}`} />
      <h3>Node executions</h3>
      <Table
        caption="Node executions"
        rows={shown}
        columns={[
          {
            label: 'Node',
            cell: (n) => (
              <>
                {definition.find((d) => d.id === n.node_id)?.name ?? <span class="mono">{n.node_id}</span>}
                {n.node_type && <span class="tag">{n.node_type}</span>}
              </>
            ),
          },
          { label: 'Status', cell: (n) => <Status value={n.status} /> },
          { label: 'Attempts', num: true, cell: (n) => n.attempt_count },
          {
            label: 'Output',
            cell: (n) =>
              n.error ? (
                <span class="problem-text">
                  {n.error.code}: {n.error.message}
                </span>
              ) : n.output_data == null ? (
                <span class="muted">—</span>
              ) : (
                <details>
                  <summary>Show output</summary>
                  <pre>{json(n.output_data)}</pre>
                </details>
              ),
          },
        ]}
      />
      {nodes.length === 0 && <p class="muted">No node executions yet.</p>}
    </section>
  );
}
