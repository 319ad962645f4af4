import { RunStopped } from './lease.js';
import type { Run, RunEventData } from './model.js';
import type { Runs } from './run-changes.js';

/**
 * Token deltas (decisions.md, Run streaming: `message.delta`): the text of a
 * model turn, written to the run's events while the model produces it.
 *
 * - Coalescing. The provider's pieces are written as one `message.delta`
 *   event at most every DELTA_INTERVAL_MS (at most about 4 a second): a
 *   piece that arrives when the last write began that long ago (the turn's
 *   first, or one after a pause) is written at once, the others wait for
 *   the interval. What is still unwritten when the model's answer is
 *   complete rides in the turn's own change, before its `message`: an
 *   answer produced at once (the local models without `delay_ms`, a
 *   provider that did not stream) costs no write of its own.
 * - Each write is one page of the run's event log and nothing else: a put
 *   right after the log's end as this worker knows it, on condition that no
 *   page starts there. The run item is not written, so a delta costs one
 *   write unit where a change of the run costs six (docs/benchmarks.md,
 *   section 5.4), and the run's `event_seq` stays at the last change's
 *   event: while the run is `running` the log may go on past it, and every
 *   change of a running run puts its events after the log's end (found from
 *   its newest page, ./run-changes.ts), so a change and a delta can never
 *   both land at one seq.
 * - A cancel is the change that puts its events after the deltas: the next
 *   delta's put finds that page, the run is read, and, no longer running
 *   (or no longer this worker's), the write aborts the model call at once
 *   (RunStopped), besides the lease watch. No delta follows a run's end.
 * - The rule a reader relies on: a delta with `restart: true` discards the
 *   text of the turn's deltas before it. The text of a turn's deltas, from
 *   its last restart on, is the text of the turn's `message` that follows
 *   them (empty when the turn ends with tool calls only and so writes no
 *   `message`); a turn cut short by the run's end has deltas and no `message`.
 * - Replay. A turn's deltas are the events past the run's `event_seq` (the
 *   change before the turn left it there; only the turn's change moves it
 *   on). A worker that plays a turn again (its first worker died
 *   mid-answer) reads them and passes its new text through TurnText: while
 *   the text repeats what is logged nothing is written, what goes past it
 *   is written as usual, and a text that parts from it is written whole as
 *   a restart. A deterministic model (local/script) continues the logged
 *   answer; any other gets a restart where it differs, and the invariant
 *   holds either way. A put that finds another worker's page (one that lost
 *   the run and wrote still, before its lease watch stopped it) reads the
 *   turn's deltas again and goes on from what a reader holds.
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
 * A turn's text against what a reader holds of it: `shown`, the text of
 * the turn's logged deltas (empty for a turn played the first time), and
 * `produced`, what the model has produced so far.
 */
export class TurnText {
  private produced = '';

  constructor(private shown: string) {}

  push(piece: string): void {
    this.produced += piece;
  }

  /**
   * The delta that takes a reader to the text produced so far: undefined
   * while the reader holds it already (or more of the same: a replay that
   * repeats what is logged), the rest when it goes on from there, else a
   * restart with all of it.
   */
  pending(): Delta | undefined {
    if (this.shown.startsWith(this.produced)) return undefined;
    return this.produced.startsWith(this.shown) ? { text: this.produced.slice(this.shown.length) } : { text: this.produced, restart: true };
  }

  /**
   * The delta that takes a reader to `content`, the whole answer: nothing
   * when it holds it, the rest when it goes on from there (a provider that
   * did not stream), else a restart (a replayed answer shorter than the
   * one logged).
   */
  final(content: string): Delta | undefined {
    this.produced = content;
    if (this.shown === content) return undefined;
    return content.startsWith(this.shown) ? { text: content.slice(this.shown.length) } : { text: content, restart: true };
  }

  /** `delta` is logged: a reader holds it too. */
  written(delta: Delta): void {
    this.shown = textAfter(this.shown, [delta]);
  }

  /** What a reader holds is `logged` (read again after another writer's page). */
  rebase(logged: string): void {
    this.shown = logged;
  }
}

/**
 * Calls `write` at most every `intervalMs` (from the start of one write to
 * the start of the next), one write at a time, while there is something new
 * to write (`poke`): a poke that comes when the last write began longer ago
 * than that (the first piece of a turn, or one after a pause) is written
 * at the next turn of the event loop; the others wait. `write` takes what
 * is new when it runs. A write that fails stops it: `onFailure` is told,
 * and nothing more is written. On the global timers and clock, so tests can
 * run it on fake ones.
 */
export class WritePacer {
  private dirty = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** Why writing stopped, when a write failed. */
  failure: unknown;

  constructor(
    private readonly write: () => Promise<void>,
    private readonly onFailure: (error: unknown) => void = () => {},
    private readonly intervalMs: number = DELTA_INTERVAL_MS,
  ) {}

  poke(): void {
    if (this.closed) return;
    this.dirty = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || !this.dirty || this.timer !== undefined || this.inFlight !== undefined) return;
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
    if (this.closed || !this.dirty) return;
    this.dirty = false;
    this.lastWriteAt = Date.now();
    this.inFlight = this.write().then(
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

  /** Stops writing: waits for the write in flight; throws the failure that stopped it, if one did. */
  async drain(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight) await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
  }
}

/**
 * `RUN_MESSAGE_DELTAS=off` (read at each turn): no `message.delta` is
 * written, and providers are called without `onText`, as before streaming.
 * The benchmark's baseline, and an operator's way to save the writes.
 */
export const deltasEnabled = (env: NodeJS.ProcessEnv = process.env): boolean => env.RUN_MESSAGE_DELTAS !== 'off';

/** What a model turn's stream needs of the runs. */
export type TurnStreamRuns = Pick<Runs, 'get' | 'eventsFrom' | 'appendAfter'>;

/** The turn's stream once the model has answered: where the turn's change puts its events, and those it writes before its `message`. */
export interface TurnStreamEnd {
  /** The log's end as the stream left it (absent when deltas are off: the change finds it). */
  afterSeq?: number;
  events: RunEventData[];
}

/**
 * The stream of one model turn of a run (the module's comment has the
 * rules): `onText` for the provider, `signal` for its call, then `finish`
 * with the answer's text, or `abandon` when the call failed.
 */
export class TurnStream {
  private readonly controller = new AbortController();
  private readonly pacer: WritePacer;

  private constructor(
    private readonly runs: TurnStreamRuns,
    private readonly runId: string,
    private readonly owner: string,
    /** The seq of the turn's first streamed event. */
    private readonly from: number,
    /** The log's last seq as this stream knows it: the end of a page. */
    private tail: number,
    /** Events to write before the turn's first delta, not yet written (the run's input, at turn 0). */
    private opening: RunEventData[],
    /** Absent when deltas are off. */
    private readonly text: TurnText | undefined,
  ) {
    this.pacer = new WritePacer(
      () => this.write(() => this.text!.pending()),
      (error) => this.controller.abort(error),
    );
    this.onText =
      text &&
      ((piece) => {
        text.push(piece);
        this.pacer.poke();
      });
  }

  /**
   * Opens turn `turn` of `run` for the worker `owner`. `opening` are the
   * events that come before the turn's text (the user's `message` at turn
   * 0): the first write carries them, or the turn's change when nothing is
   * written before it. What the turn logged already (its first worker died
   * mid-answer) is read back, one Query, and continued.
   */
  static async open(runs: TurnStreamRuns, run: Run, owner: string, turn: number, opening: RunEventData[]): Promise<TurnStream> {
    if (!deltasEnabled()) return new TurnStream(runs, run.id, owner, run.event_seq + 1, run.event_seq, opening, undefined);
    const from = run.stream?.turn === turn ? run.stream.from_seq : run.event_seq + 1;
    const logged = await runs.eventsFrom(run.id, from);
    const tail = Math.max(run.event_seq, logged.at(-1)?.seq ?? 0);
    // The turn's first write carried the opening events.
    return new TurnStream(runs, run.id, owner, from, tail, logged.length ? [] : opening, new TurnText(loggedText(logged.map((event) => event.data))));
  }

  /** The provider's `onText` (none when deltas are off). */
  readonly onText: ((piece: string) => void) | undefined;

  /** The model call's signal: `outer`'s, and aborted as well when a write finds the run ended or taken over (its reason a RunStopped). */
  signal(outer?: AbortSignal): AbortSignal {
    return outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
  }

  /** Why the stream stopped the call (RunStopped, or a write's own error), if it did. */
  get failure(): unknown {
    return this.pacer.failure;
  }

  /** One write: the delta `take` answers, as the page after the log's end, with the opening events still unwritten. */
  private async write(take: () => Delta | undefined): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const delta = take();
      if (!delta) return;
      const events = [...this.opening, deltaEvent(delta)];
      if (await this.runs.appendAfter(this.runId, this.tail, events)) {
        this.tail += events.length;
        this.opening = [];
        this.text!.written(delta);
        return;
      }
      // A page came first: the run's end, or a page of a worker that took the run over or lost it.
      const now = await this.runs.get(this.runId);
      if (now?.status !== 'running') throw new RunStopped('ended');
      if (now.lease_owner !== this.owner) throw new RunStopped('lease_lost');
      const logged = await this.runs.eventsFrom(this.runId, this.from);
      this.tail = Math.max(this.tail, logged.at(-1)?.seq ?? 0);
      if (logged.length) this.opening = [];
      this.text!.rebase(loggedText(logged.map((event) => event.data)));
    }
    throw new Error(`Run ${this.runId}: a delta kept colliding with other writes.`);
  }

  /**
   * The model answered `content`: no more paced writes; what is left (a
   * restart, when what a reader holds is not `content`) comes back as
   * events for the turn's own change, after the opening ones still
   * unwritten, with the seq they follow. Throws what stopped the stream,
   * if something did.
   */
  async finish(content: string): Promise<TurnStreamEnd> {
    await this.pacer.drain();
    if (!this.text) return { events: this.opening };
    const last = this.text.final(content);
    if (last && last.text.length > FOLD_MAX_CHARS) {
      await this.write(() => this.text!.final(content));
      return { afterSeq: this.tail, events: [] };
    }
    return { afterSeq: this.tail, events: [...this.opening, ...(last ? [deltaEvent(last)] : [])] };
  }

  /** The call failed or was stopped: no more writes. */
  async abandon(): Promise<void> {
    await this.pacer.drain().catch(() => undefined);
  }
}
