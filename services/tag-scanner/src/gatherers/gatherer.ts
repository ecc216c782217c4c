import { TIMED_OUT, within } from "../util.ts";

/**
 * The lifecycle every gatherer shares (Lighthouse's model, core/gather/runner-helpers.js): a gatherer listens to the
 * page over CDP from before the creative loads until the scan ends, and its `artifact` is plain data from which the
 * report is computed. Gatherers never decide report fields; src/fields and src/report.ts do.
 *
 * The scan moves every gatherer through the same phases, in one loop (`runPhase`), never one by one:
 *  - `start`: on the prepared page, before the creative is known — enable the CDP domains, inject scripts;
 *  - `beginRender`: the creative is about to load;
 *  - `endRender`: the render watch has given its verdict;
 *  - `endCreative`: the creative's part is over — what follows (the click-through) is the landing page's;
 *  - `stop`: collection ends and whatever reading is left finishes.
 * A gatherer implements the phases it has work in; `start` and `stop` always.
 */
export interface Gatherer<A = unknown> {
  /** Names the gatherer in recorded errors. */
  readonly name: string;
  readonly artifact: A;
  start(): Promise<void>;
  beginRender?(scan: RenderStart): Promise<void> | void;
  endRender?(): Promise<void> | void;
  endCreative?(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** What a gatherer learns when the render begins. */
export interface RenderStart {
  /** The scan's viewport, CSS px. */
  viewport: { width: number; height: number };
}

export type GatherPhase = "start" | "beginRender" | "endRender" | "endCreative" | "stop";

/** A gatherer that failed (or did not finish in time) in one phase: the scan goes on without what it would add. */
export interface GatherError {
  gatherer: string;
  phase: GatherPhase;
  error: string;
}

/**
 * Runs one phase on every gatherer at once and waits for all of them, each bounded by `ms` when given; returns what
 * failed. Every gatherer's call is made before the first is awaited, so synchronous phases (a flag that ends
 * collection) take effect together, and CDP commands go out in the list's order.
 */
export async function runPhase(gatherers: readonly Gatherer[], phase: GatherPhase, opts: { ms?: number; scan?: RenderStart } = {}): Promise<GatherError[]> {
  const runs = gatherers.map(async (g): Promise<GatherError | undefined> => {
    try {
      const call = phase === "beginRender" ? g.beginRender?.(opts.scan ?? { viewport: { width: 0, height: 0 } }) : g[phase]?.();
      const done = Promise.resolve(call);
      if (opts.ms === undefined) await done;
      else if ((await within(done, opts.ms)) === TIMED_OUT) return { gatherer: g.name, phase, error: `did not finish within ${opts.ms} ms` };
      return undefined;
    } catch (err) {
      return { gatherer: g.name, phase, error: err instanceof Error ? err.message : String(err) };
    }
  });
  return (await Promise.all(runs)).filter((e): e is GatherError => e !== undefined);
}
