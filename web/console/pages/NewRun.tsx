import type { Schemas } from '@workflow-service/client';
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { allPages, api } from '../api';
import { Problem } from '../components/Problem';
import { navigate } from '../router';

type HarnessEntry = Schemas['HarnessListEntry'];
type Machine = Schemas['Machine'];

export const loadHarnesses = () =>
  allPages(async (cursor) => {
    const { data } = await api.GET('/v2/harnesses', { params: { query: { limit: 100, cursor } } });
    return { items: data.data, next: data.page.next_cursor };
  });

const loadMachines = () =>
  allPages(async (cursor) => {
    const { data } = await api.GET('/v1/machines', { params: { query: { limit: 100, cursor } } });
    return { items: data.machines, next: data.next_cursor };
  });

/** The development harness a new account can start with: `local/echo` answers the input. */
const EXAMPLE_HARNESS = {
  name: 'Echo (example)',
  files: [
    { path: 'harness.json', content: '{"model": "local/echo", "instructions": "prompt.md"}' },
    { path: 'prompt.md', content: 'You are a helpful assistant.' },
  ],
};

/**
 * Starts a run (POST /v2/runs): a harness, a machine and the input (text,
 * or JSON such as `local/script`'s `{"steps": [...]}`). An account with no
 * harness or no machine yet can make an example of each here.
 */
export function NewRunForm({ onCancel }: { onCancel: () => void }) {
  const [harnesses, setHarnesses] = useState<HarnessEntry[]>();
  const [machines, setMachines] = useState<Machine[]>();
  const [harnessId, setHarnessId] = useState('');
  const [machineId, setMachineId] = useState('');
  const [input, setInput] = useState('');
  const [asJson, setAsJson] = useState(false);
  const [busy, error, run, setError] = useAction();

  useEffect(() => {
    void run(async () => {
      const [h, m] = await Promise.all([loadHarnesses(), loadMachines()]);
      setHarnesses(h);
      setHarnessId(h[0]?.id ?? '');
      setMachines(m);
      setMachineId((m.find((x) => x.status === 'idle') ?? m[0])?.id ?? '');
    });
  }, []);

  const createHarness = () =>
    run(async () => {
      const { data } = await api.POST('/v2/harnesses', { body: EXAMPLE_HARNESS });
      setHarnesses([data]);
      setHarnessId(data.id);
    });

  const createMachine = () =>
    run(async () => {
      const { data } = await api.POST('/v1/machines', { body: { name: 'Machine 1', size: 'small' } });
      setMachines([data]);
      setMachineId(data.id);
    });

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    let body: string | Record<string, unknown> = input;
    if (asJson) {
      try {
        body = JSON.parse(input) as Record<string, unknown>;
      } catch {
        setError('The input is not valid JSON.');
        return;
      }
    }
    void run(async () => {
      const { data } = await api.POST('/v2/runs', { body: { harness_id: harnessId, machine_id: machineId, input: body } });
      navigate('runs', data.id);
    });
  };

  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="new-run-title">
      <h3 id="new-run-title">New run</h3>
      <div class="row">
        <label class="grow">
          Harness
          <select value={harnessId} required onChange={(e) => setHarnessId(e.currentTarget.value)}>
            {harnesses?.length === 0 && <option value="">No harness yet</option>}
            {harnesses?.map((h) => (
              <option value={h.id}>
                {h.name} ({h.id})
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Machine
          <select value={machineId} required onChange={(e) => setMachineId(e.currentTarget.value)}>
            {machines?.length === 0 && <option value="">No machine yet</option>}
            {machines?.map((m) => (
              <option value={m.id}>
                {m.name} ({m.size}, {m.status === 'idle' ? 'idle' : `busy, ${m.queued_runs} waiting`})
              </option>
            ))}
          </select>
        </label>
      </div>
      {(harnesses?.length === 0 || machines?.length === 0) && (
        <p class="actions">
          {harnesses?.length === 0 && (
            <button type="button" class="secondary small" disabled={busy} onClick={createHarness}>
              Create an example harness (local/echo)
            </button>
          )}
          {machines?.length === 0 && (
            <button type="button" class="secondary small" disabled={busy} onClick={createMachine}>
              Create a machine
            </button>
          )}
        </p>
      )}
      <label>
        Input
        <textarea rows={4} required value={input} onInput={(e) => setInput(e.currentTarget.value)} placeholder="The user's message" />
      </label>
      <label class="check">
        <input type="checkbox" checked={asJson} onChange={(e) => setAsJson(e.currentTarget.checked)} />
        Send the input as JSON (for example <code>{'{"steps": [...]}'}</code> of local/script)
      </label>
      <Problem error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || !harnessId || !machineId}>
          Start run
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
