import { RunStopped } from './lease.js';
import type { Run, RunEventData } from './model.js';
import type { Runs } from './run-changes.js';

/**
 * Token deltas (decisions.md, Run streaming: `message.delta`): the text of a
 * model turn, written to the run's events while the model produces it.
 *
 * - Coalescing. The provider's pieces are buffered and written as one
 *   `message.delta` event at most every DELTA_INTERVAL_MS (at most about 4
 *   a second): a piece that arrives when the last write began that long ago
 *   (the turn's first, or one after a pause) is written at once, the others
 *   wait for the interval. What is still buffered when the model's answer
 *   is complete rides in the turn's own change, before its `message`: an
 *   answer produced at once (the local models without `delay_ms`, a
 *   provider that did not stream) costs no write of its own.
 * - Each write is a change of the run like any other (its event page and
 *   the run's `event_seq`, one transaction), on condition that the run is
 *   still `running` and the worker still holds its lease: once the run is
 *   cancelled (or taken over) no delta is written, and the refused write
 *   aborts the model call at once (RunStopped), besides the lease watch.
 * - The rule a reader relies on: a delta with `restart: true` discards the
 *   text of the turn's deltas before it. The text of a turn's deltas, from
 *   its last restart on, is the text of the turn's `message` that follows
 *   them (empty when the turn ends with tool calls only and so writes no
 *   `message`); a turn cut short by the run's end has deltas and no `message`.
 * - Replay. The first write of a turn marks the run (`stream: {turn,
 *   from_seq}`). A worker that plays a marked turn again (its first worker
 *   died mid-answer) reads the deltas logged since `from_seq` and passes its
 *   new text through TurnText: while the text repeats what is logged
 *   nothing is written, what goes past it is written as usual, and a text
 *   that parts from it is written whole as a restart. A deterministic model
 *   (local/script) continues the logged answer; any other gets a restart
 *   where it differs, and the invariant holds either way.
 */

/** A piece of a turn's text as one `message.delta` carries it. */
export interface Delta {
  text: string;
  /** The text of the turn's deltas before this one is discarded: this delta starts it again. */
  restart?: true;
}

/** The shortest time between the starts of two writes of a turn's deltas. */
export const DELTA_INTERVAL_MS = 250;

/**
 * A remainder longer than this (characters) is written on its own before
 * the turn's change rather than in it: the turn's `message` repeats the
 * text, and a page holds 400 KB.
 */
export const FOLD_MAX_CHARS = 16_000;

/** Two consecutive deltas as one: a restart discards what came before it. */
export const mergeDeltas = (before: Delta | undefined, after: Delta): Delta =>
  before === undefined || after.restart ? after : { ...before, text: before.text + after.text };

/** The text a reader holds after `deltas`, starting from `text`. */
export function textAfter(text: string, deltas: Iterable<Delta>): string {
  let out = text;
  for (const delta of deltas) out = delta.restart ? delta.text : out + delta.text;
  return out;
}

/** The event of a delta. */
export const deltaEvent = (delta: Delta): RunEventData => ({
  type: 'message.delta',
  data: delta.restart ? { text: delta.text, restart: true } : { text: delta.text },
});

/** The text a turn's logged events hold, by the rule above (events other than deltas are left out). */
export const loggedText = (events: readonly RunEventData[]): string =>
  textAfter(
    '',
    events.flatMap((event): Delta[] =>
      event.type === 'message.delta' ? [event.data.restart ? { text: event.data.text, restart: true } : { text: event.data.text }] : [],
    ),
  );

/**
 * A turn's text against what is already logged of it (`logged`, empty for
 * a turn played the first time): the deltas that take a reader from
 * `logged` to the text produced so far, and at the end to the whole answer.
 */
export class TurnText {
  private produced = '';
  /** The text produced so far is still a prefix of the logged text: nothing is written. */
  private following: boolean;
  /** What a reader holds once every delta answered so far is written. */
  private shown: string;

  constructor(private readonly logged: string) {
    this.following = logged !== '';
    this.shown = logged;
  }

  /** The delta for a piece of the text, or undefined when it only repeats what is logged. */
  push(piece: string): Delta | undefined {
    this.produced += piece;
    let delta: Delta;
    if (!this.following) delta = { text: piece };
    else if (this.logged.startsWith(this.produced)) return undefined;
    else {
      this.following = false;
      delta = this.produced.startsWith(this.logged) ? { text: this.produced.slice(this.logged.length) } : { text: this.produced, restart: true };
    }
    this.shown = textAfter(this.shown, [delta]);
    return delta;
  }

  /**
   * What must still be written once the answer is `content`: nothing when a
   * reader holds it already, the rest when it goes on from there (a
   * provider that did not stream), else a restart with all of it (a
   * replayed answer shorter than the one logged).
   */
  finish(content: string): Delta | undefined {
    const shown = this.shown;
    if (shown === content) return undefined;
    this.shown = content;
    return content.startsWith(shown) ? { text: content.slice(shown.length) } : { text: content, restart: true };
  }
}

/**
 * Buffers deltas and hands them to `write` at most every `intervalMs`
 * (from the start of one write to the start of the next), one write at a
 * time: a piece that comes when the last write began longer ago than that
 * (the first piece of a turn, or one after a pause) is written at once,
 * at the next turn of the event loop; the others wait. A write that fails
 * stops it: `onFailure` is told, and nothing more is written. On the
 * global timers and clock, so tests can run it on fake ones.
 */
export class DeltaCoalescer {
  private buffer: Delta | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** Why writing stopped, when a write failed. */
  failure: unknown;

  constructor(
    private readonly write: (delta: Delta) => Promise<void>,
    private readonly onFailure: (error: unknown) => void = () => {},
    private readonly intervalMs: number = DELTA_INTERVAL_MS,
  ) {}

  push(delta: Delta): void {
    if (this.closed) return;
    this.buffer = mergeDeltas(this.buffer, delta);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.buffer === undefined || this.timer !== undefined || this.inFlight !== undefined) return;
    // Never synchronously: an answer that completes right after its piece folds it into the turn's change instead.
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.flush();
      },
      Math.max(0, this.lastWriteAt + this.intervalMs - Date.now()),
    );
  }

  private flush(): void {
    if (this.closed || this.buffer === undefined) return;
    const delta = this.buffer;
    this.buffer = undefined;
    this.lastWriteAt = Date.now();
    this.inFlight = this.write(delta).then(
      () => {
        this.inFlight = undefined;
        this.schedule();
      },
      (error: unknown) => {
        this.inFlight = undefined;
        this.closed = true;
        this.failure = error;
        this.onFailure(error);
      },
    );
  }

  /** Stops writing: waits for the write in flight, then answers what is left unwritten; throws the failure that stopped it, if one did. */
  async drain(): Promise<Delta | undefined> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight) await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
    const rest = this.buffer;
    this.buffer = undefined;
    return rest;
  }
}

/**
 * `RUN_MESSAGE_DELTAS=off` (read at each turn): no `message.delta` is
 * written, and providers are called without `onText`, as before streaming.
 * The benchmark's baseline, and an operator's way to save the writes.
 */
export const deltasEnabled = (env: NodeJS.ProcessEnv = process.env): boolean => env.RUN_MESSAGE_DELTAS !== 'off';

/** What a model turn's stream needs of the runs. */
export type TurnStreamRuns = Pick<Runs, 'change' | 'get' | 'eventsBetween'>;

/** The turn's stream once the model has answered: the run as the writes left it, and the events its own change writes before its `message`. */
export interface TurnStreamEnd {
  run: Run;
  events: RunEventData[];
}

/**
 * The stream of one model turn of a run (the module's comment has the
 * rules): `onText` for the provider, `signal` for its call, then `finish`
 * with the answer's text, or `abandon` when the call failed.
 */
export class TurnStream {
  private readonly controller = new AbortController();
  private readonly coalescer: DeltaCoalescer;

  private constructor(
    private readonly runs: TurnStreamRuns,
    private run: Run,
    private readonly owner: string,
    private readonly turn: number,
    /** Events to write before the turn's first delta, not yet written (the run's input, at turn 0). */
    private opening: RunEventData[],
    /** Absent when deltas are off. */
    private readonly text: TurnText | undefined,
  ) {
    this.coalescer = new DeltaCoalescer(
      (delta) => this.write(delta),
      (error) => this.controller.abort(error),
    );
    this.onText =
      text &&
      ((piece) => {
        const delta = text.push(piece);
        if (delta) this.coalescer.push(delta);
      });
  }

  /**
   * Opens turn `turn` of `run` for the worker `owner`. `opening` are the
   * events that come before the turn's text (the user's `message` at turn
   * 0): the first write carries them, or the turn's change when nothing is
   * written before it. A turn the run is marked as streaming is one played
   * again: what it logged is read back (one Query) and continued.
   */
  static async open(runs: TurnStreamRuns, run: Run, owner: string, turn: number, opening: RunEventData[]): Promise<TurnStream> {
    if (!deltasEnabled()) return new TurnStream(runs, run, owner, turn, opening, undefined);
    if (run.stream?.turn !== turn) return new TurnStream(runs, run, owner, turn, opening, new TurnText(''));
    const logged = await runs.eventsBetween(run.id, run.stream.from_seq, run.event_seq);
    // The turn's first write carried the opening events.
    return new TurnStream(runs, run, owner, turn, [], new TurnText(loggedText(logged)));
  }

  /** The provider's `onText` (none when deltas are off). */
  readonly onText: ((piece: string) => void) | undefined;

  /** The model call's signal: `outer`'s, and aborted as well when a write finds the run ended or taken over (its reason a RunStopped). */
  signal(outer?: AbortSignal): AbortSignal {
    return outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
  }

  /** Why the stream stopped the call (RunStopped, or a write's own error), if it did. */
  get failure(): unknown {
    return this.coalescer.failure;
  }

  /** One write: a change of the run, on condition it is still running and this worker's. */
  private async write(delta: Delta): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const set = this.run.stream?.turn === this.turn ? {} : { stream: { turn: this.turn, from_seq: this.run.event_seq + 1 } };
      const events = [...this.opening, deltaEvent(delta)];
      const changed = await this.runs.change(this.run, { set, events, from: ['running'], leaseOwner: this.owner });
      if (changed) {
        this.run = changed;
        this.opening = [];
        return;
      }
      const now = await this.runs.get(this.run.id);
      if (now?.status !== 'running') throw new RunStopped('ended');
      if (now.lease_owner !== this.owner) throw new RunStopped('lease_lost');
      this.run = now;
    }
    throw new Error(`Run ${this.run.id}: a delta kept colliding with other writes.`);
  }

  /**
   * The model answered `content`: no more writes; what is left (and a
   * restart, when what a reader holds is not `content`) comes back as
   * events for the turn's own change, after the opening ones still unwritten.
   * Throws what stopped the stream, if something did.
   */
  async finish(content: string): Promise<TurnStreamEnd> {
    let rest = await this.coalescer.drain();
    if (!this.text) return { run: this.run, events: this.opening };
    const last = this.text.finish(content);
    if (last) rest = mergeDeltas(rest, last);
    if (rest && rest.text.length > FOLD_MAX_CHARS) {
      await this.write(rest);
      rest = undefined;
    }
    return { run: this.run, events: [...this.opening, ...(rest ? [deltaEvent(rest)] : [])] };
  }

  /** The call failed or was stopped: no more writes; the run as the writes left it. */
  async abandon(): Promise<Run> {
    await this.coalescer.drain().catch(() => undefined);
    return this.run;
  }
}
