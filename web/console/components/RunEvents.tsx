import type { RunEvent } from '@workflow-service/client';
import { json, usd } from '../format';
import { Status } from './Status';
import { Time } from './Time';

type Data = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : json(value));

/** What one event says, by its type; a type this console does not know is shown as its JSON. */
function Body({ type, data }: { type: string; data: Data }) {
  switch (type) {
    case 'run.status':
      return (
        <p>
          Status <Status value={String(data.status)} />
        </p>
      );
    case 'message':
      return (
        <div class={`message message-${String(data.role)}`}>
          <p class="event-label">{data.role === 'user' ? 'User' : 'Assistant'}</p>
          <p class="prose">{text(data.text)}</p>
        </div>
      );
    case 'tool_call':
      return (
        <div class="tool">
          <p class="event-label">
            Tool call <code>{String(data.name)}</code>
          </p>
          <pre>{json(data.arguments)}</pre>
        </div>
      );
    case 'tool_result':
      return (
        <div class="tool">
          <p class="event-label">
            Tool result <code>{String(data.name)}</code>
            {data.denied ? <span class="badge badge-bad">denied</span> : data.is_error ? <span class="badge badge-bad">error</span> : null}
          </p>
          <pre>{text(data.text)}</pre>
        </div>
      );
    case 'interaction':
      return (
        <p>
          {data.type === 'approval' ? 'Approval' : 'Question'} <Status value={String(data.status)} />
        </p>
      );
    case 'usage':
      return (
        <p class="muted">
          Usage so far: {String(data.input_tokens)} input and {String(data.output_tokens)} output tokens, {usd(Number(data.cost_micro_usd))}
        </p>
      );
    default:
      return (
        <>
          <p class="event-label">
            <code>{type}</code>
          </p>
          <pre>{json(data)}</pre>
        </>
      );
  }
}

/** A run's events in order, and the assistant's answer while it streams in (`message.delta`). */
export function RunEvents({ events, draft }: { events: RunEvent[]; draft: string }) {
  return (
    <>
      <ol class="events" aria-label="Run events">
        {events.map((event) => (
          <li key={event.id} class={`event event-${event.type.replace('.', '-')}`}>
            <span class="event-meta">
              <span class="seq">#{event.seq}</span> <Time value={event.created_at} clock />
            </span>
            <div class="event-body">
              <Body type={event.type} data={event.data as Data} />
            </div>
          </li>
        ))}
      </ol>
      {draft && (
        <div class="event event-draft" aria-live="off">
          <span class="event-meta">writing…</span>
          <div class="event-body message message-assistant">
            <p class="event-label">Assistant</p>
            <p class="prose">{draft}</p>
          </div>
        </div>
      )}
    </>
  );
}
