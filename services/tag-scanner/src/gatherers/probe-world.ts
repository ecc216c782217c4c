import type { CDPSession, Protocol } from "puppeteer-core";
import { bounded } from "../util.ts";

/**
 * Isolated worlds (CDP Page.createIsolatedWorld), one per frame, where every probe of the creative's DOM runs:
 * layout, click point, animations, videos, local storage. They share the DOM with the creative but none of its
 * JavaScript, so a creative that overrides getBoundingClientRect, querySelectorAll, getAnimations or performance in
 * its own world cannot change what we read. A world dies with its document; it is re-created on the next probe.
 */
export interface ProbeWorlds {
  /** Frame ids of the page, top frame first (the frame tree in document order). */
  frames(): Promise<Array<{ id: string; parentId?: string; url: string }>>;
  /** Evaluates `expression` in the frame's isolated world; undefined when the frame is gone or the call fails. */
  evaluate<T>(frameId: string, expression: string, ms: number, awaitPromise?: boolean): Promise<T | undefined>;
  /**
   * The same, telling a frame that did not answer in time ("hung": starved, or busy in a loop) from one whose call
   * failed ("failed": gone, or navigating). Only the first leaves a question open: it may still be moving.
   */
  attempt<T>(frameId: string, expression: string, ms: number, awaitPromise?: boolean): Promise<ProbeAnswer<T>>;
}

export type ProbeAnswer<T> = { value: T } | { missing: "hung" | "failed" };

const WORLD = "cva-probe";

export function createProbeWorlds(client: CDPSession): ProbeWorlds {
  const contexts = new Map<string, number>();
  // A navigation or a detach destroys the frame's world: forget it so the next probe makes a new one.
  client.on("Runtime.executionContextDestroyed", (e: Protocol.Runtime.ExecutionContextDestroyedEvent) => {
    for (const [f, id] of contexts) if (id === e.executionContextId) contexts.delete(f);
  });
  client.on("Runtime.executionContextsCleared", () => contexts.clear());
  client.on("Page.frameNavigated", (e: Protocol.Page.FrameNavigatedEvent) => contexts.delete(e.frame.id));
  client.on("Page.frameDetached", (e: Protocol.Page.FrameDetachedEvent) => contexts.delete(e.frameId));

  // Worlds being created: two probes of one frame at once (axe loading beside the layout probe) share one world.
  const creating = new Map<string, Promise<number>>();
  client.on("Page.frameNavigated", (e: Protocol.Page.FrameNavigatedEvent) => creating.delete(e.frame.id));
  async function contextFor(frameId: string): Promise<number> {
    const known = contexts.get(frameId);
    if (known !== undefined) return known;
    let made = creating.get(frameId);
    if (!made) {
      const p: Promise<number> = client.send("Page.createIsolatedWorld", { frameId, worldName: WORLD, grantUniveralAccess: false })
        .then(({ executionContextId }) => {
          if (creating.get(frameId) === p) contexts.set(frameId, executionContextId);
          return executionContextId;
        })
        .finally(() => { if (creating.get(frameId) === p) creating.delete(frameId); });
      creating.set(frameId, p);
      made = p;
    }
    return made;
  }

  async function run<T>(frameId: string, expression: string, awaitPromise: boolean): Promise<T> {
    const contextId = await contextFor(frameId);
    const r = await client.send("Runtime.evaluate", { expression, contextId, returnByValue: true, awaitPromise });
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.text);
    return r.result.value as T;
  }

  return {
    async frames() {
      const out: Array<{ id: string; parentId?: string; url: string }> = [];
      const tree = await bounded(client.send("Page.getFrameTree"), 2_000, undefined);
      const walk = (t: Protocol.Page.FrameTree) => {
        if (out.length >= 50) return;
        out.push({ id: t.frame.id, parentId: t.frame.parentId, url: t.frame.url });
        for (const c of t.childFrames ?? []) walk(c);
      };
      if (tree) walk(tree.frameTree);
      return out;
    },
    evaluate: async <T>(frameId: string, expression: string, ms: number, awaitPromise = false) => {
      const a = await attempt<T>(frameId, expression, ms, awaitPromise);
      return "value" in a ? a.value : undefined;
    },
    attempt,
  };

  async function attempt<T>(frameId: string, expression: string, ms: number, awaitPromise = false): Promise<ProbeAnswer<T>> {
    // One retry with a fresh world when the call fails (the cached world may belong to a document just replaced);
    // none when it only hangs: a stuck main thread would hang the retry too.
    const call = async (): Promise<ProbeAnswer<T>> => {
      try {
        return { value: await run<T>(frameId, expression, awaitPromise) };
      } catch {
        contexts.delete(frameId);
        try {
          return { value: await run<T>(frameId, expression, awaitPromise) };
        } catch {
          return { missing: "failed" };
        }
      }
    };
    return bounded(call(), ms, { missing: "hung" });
  }
}
