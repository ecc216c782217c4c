/**
 * A worker's slots shared by its pulls (one per location). Waiters are served first come, first served: a pull that
 * just gave its slot back queues behind the other locations' pulls instead of taking it again at once. After
 * close(), every waiter (and every later acquire) is let through so loops can see they are stopping.
 */
export interface SlotGate {
  acquire(): Promise<void>;
  /**
   * Resolves when a slot is free and nobody waits for one, without taking it (a worker that takes its slot only when
   * a job arrives issues its pulls then: worker.ts `slotOnArrival`).
   */
  whenFree(): Promise<void>;
  release(): void;
  close(): void;
}

export function createSlotGate(size: number): SlotGate {
  let free = Math.max(1, size);
  let closed = false;
  const waiters: Array<() => void> = [];
  const freeWaiters: Array<() => void> = [];
  return {
    acquire() {
      if (closed) return Promise.resolve();
      if (free > 0 && waiters.length === 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    whenFree() {
      if (closed || (free > 0 && waiters.length === 0)) return Promise.resolve();
      return new Promise<void>((resolve) => freeWaiters.push(resolve));
    },
    release() {
      const next = waiters.shift();
      if (next) next();
      else {
        free++;
        for (const w of freeWaiters.splice(0)) w();
      }
    },
    close() {
      closed = true;
      for (const w of waiters.splice(0)) w();
      for (const w of freeWaiters.splice(0)) w();
    },
  };
}
