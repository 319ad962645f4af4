import type { RunEvent, Schemas } from '@workflow-service/client';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useAction } from '../action';
import { api, errorText } from '../api';
import { Facts } from '../components/Facts';
import { Interactions } from '../components/Interactions';
import { Problem } from '../components/Problem';
import { RunEvents } from '../components/RunEvents';
import { Status } from '../components/Status';
import { Time } from '../components/Time';
import { ENDED_RUN, formatCount, json, usd } from '../format';
import { href } from '../router';

type Run = Schemas['Run'];
type Live = 'connecting' | 'live' | 'ended' | 'lost';

const LIVE_NOTE: Record<Live, string> = {
  connecting: 'Connecting to live events…',
  live: 'Following live.',
  ended: '',
  lost: 'Live events stopped.',
};

/** The limits a run runs under, in words ("none" without any). */
function limitsText(limits: Run['limits']): string {
  if (!limits) return 'none';
  const parts = [
    limits.max_cost_micro_usd !== undefined && `cost ${usd(limits.max_cost_micro_usd)}`,
    limits.max_duration_seconds !== undefined && `${formatCount(limits.max_duration_seconds)} s running`,
    limits.max_tool_calls !== undefined && `${formatCount(limits.max_tool_calls)} tool call${limits.max_tool_calls === 1 ? '' : 's'}`,
  ].filter((part): part is string => typeof part === 'string');
  return parts.length > 0 ? parts.join(' · ') : 'none';
}

/** A resource by its name, and its id below. */
const Named = ({ name, id }: { name: string | undefined; id: string }) => (
  <>
    {name}
    <div class="muted mono">{id}</div>
  </>
);

/**
 * A run: its details, output and failure, its pending interactions answered
 * in place, "Cancel run" while it has not ended, and its events followed live
 * (SSE, resumed after the last event received).
 */
export function RunPage({ id }: { id: string }) {
  const [run, setRun] = useState<Run>();
  const [error, setError] = useState<unknown>();
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [draft, setDraft] = useState('');
  const [live, setLive] = useState<Live>('connecting');
  const [streamError, setStreamError] = useState<unknown>();
  const [connection, setConnection] = useState(0);
  const [refresh, setRefresh] = useState(0);
  const [cancelling, cancelError, act] = useAction();
  const lastEventId = useRef<string | undefined>(undefined);
  const lastSeq = useRef(0);

  const loadRun = () =>
    api.GET('/v2/runs/{id}', { params: { path: { id } } }).then(
      ({ data }) => {
        setRun(data);
        return data;
      },
      (failure) => void setError(failure),
    );

  const [names, setNames] = useState<{ harness?: string; machine?: string }>({});

  useEffect(() => {
    void loadRun().then((loaded) => {
      if (!loaded) return;
      api.GET('/v2/harnesses/{id}', { params: { path: { id: loaded.harness_id } } }).then(
        ({ data }) => setNames((n) => ({ ...n, harness: data.name })),
        () => {},
      );
      api.GET('/v1/machines/{id}', { params: { path: { id: loaded.machine_id } } }).then(
        ({ data }) => setNames((n) => ({ ...n, machine: data.name })),
        () => {},
      );
    });
  }, [id]);

  useEffect(() => {
    const stop = new AbortController();
    const apply = (event: RunEvent) => {
      const type: string = event.type;
      const data = event.data as Record<string, unknown>;
      if (type === 'message.delta') {
        // `restart`: a worker that took the run over answers again; its text replaces what was shown.
        setDraft((shown) => (data.restart ? '' : shown) + String(data.text ?? ''));
        return;
      }
      // The answer is complete, or the run ended in the middle of it: the draft goes either way.
      if (type === 'message' || (type === 'run.status' && ENDED_RUN.has(String(data.status)))) setDraft('');
      setEvents((list) => [...list, event]);
      if (type === 'run.status') {
        const status = data.status as Run['status'];
        setRun((shown) => shown && { ...shown, status });
        setRefresh((n) => n + 1);
        if (ENDED_RUN.has(status)) void loadRun();
      } else if (type === 'interaction') {
        setRefresh((n) => n + 1);
      } else if (type === 'usage') {
        setRun((shown) => shown && { ...shown, usage: data as Run['usage'] });
      }
    };
    setLive('connecting');
    setStreamError(undefined);
    void (async () => {
      try {
        for await (const event of api.streamRunEvents(id, { lastEventId: lastEventId.current, signal: stop.signal })) {
          setLive('live');
          lastEventId.current = event.id;
          if (event.seq <= lastSeq.current) continue;
          lastSeq.current = event.seq;
          apply(event);
        }
        if (!stop.signal.aborted) setLive('ended');
      } catch (failure) {
        if (stop.signal.aborted) return;
        setLive('lost');
        setStreamError(failure);
      }
    })();
    return () => stop.abort();
  }, [id, connection]);

  const cancel = () =>
    act(async () => {
      const { data } = await api.POST('/v2/runs/{id}/cancel', { params: { path: { id } } });
      setRun(data);
    });

  const ended = run && ENDED_RUN.has(run.status);
  return (
    <section>
      <p class="crumb">
        <a href={href('runs')}>← Runs</a>
      </p>
      <div class="heading-row">
        <h2>
          Run <span class="mono">{id}</span>
        </h2>
        {run && !ended && (
          <button type="button" class="danger" disabled={cancelling} onClick={cancel}>
            Cancel run
          </button>
        )}
      </div>
      <Problem error={error || cancelError} />
      {run && (
        <>
          <p class="run-status" role="status">
            Status <Status value={run.status} /> <span class="muted">{ended ? '' : LIVE_NOTE[live]}</span>
          </p>
          {live === 'lost' && (
            <p class="problem">
              {errorText(streamError)}{' '}
              <button type="button" class="secondary small" onClick={() => setConnection((n) => n + 1)}>
                Reconnect
              </button>
            </p>
          )}
          <Facts
            items={[
              ['Harness', <Named name={names.harness} id={run.harness_id} />],
              ['Machine', <Named name={names.machine} id={run.machine_id} />],
              ...(run.forked_from
                ? ([
                    [
                      'Forked from',
                      <>
                        <a href={href('runs', run.forked_from.run_id)} class="mono">
                          {run.forked_from.run_id}
                        </a>{' '}
                        <span class="muted">after event {run.forked_from.seq}</span>
                      </>,
                    ],
                  ] as Array<[string, ComponentChildren]>)
                : []),
              ['Created', <Time value={run.created_at} />],
              ['Started', <Time value={run.started_at} />],
              ['Ended', <Time value={run.completed_at} />],
              ['Tokens', `${formatCount(run.usage.input_tokens)} in · ${formatCount(run.usage.output_tokens)} out`],
              ['Cost', usd(run.usage.cost_micro_usd)],
              ['Limits', limitsText(run.limits)],
            ]}
          />
          {run.failure && (
            <div class="problem" role="alert">
              <p>
                <strong>Failed: {run.failure.code.replace(/_/g, ' ')}</strong> ({run.failure.retryable ? 'worth retrying' : 'not retryable'})
              </p>
              <p>{run.failure.message}</p>
              {run.failure.limit && (
                <p>
                  Limit reached: <code>{run.failure.limit}</code>
                  {run.limits?.[run.failure.limit] !== undefined && <> ({formatCount(run.limits[run.failure.limit]!)})</>}
                </p>
              )}
            </div>
          )}
          <Interactions runId={id} refresh={refresh} />
          {run.output !== null && (
            <>
              <h3>Output</h3>
              <pre class="output">{run.output}</pre>
            </>
          )}
          <details>
            <summary>Input</summary>
            <pre>{typeof run.input === 'string' ? run.input : json(run.input)}</pre>
          </details>
        </>
      )}
      <h3>Events</h3>
      <RunEvents events={events} draft={draft} />
      {live === 'connecting' && events.length === 0 && <p class="muted">Loading events…</p>}
    </section>
  );
}
