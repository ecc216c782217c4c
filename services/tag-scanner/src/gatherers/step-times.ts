/**
 * Wall ms per named step of the measuring phases, for the scan log's `steps_ms` (where a scan's time goes after its
 * render; issue 22): each call charges the time since the previous one to `name`.
 */
export type StepTimes = Record<string, number>;

export function stepClock(into: StepTimes | undefined): (name: string) => void {
  let t = Date.now();
  return (name) => {
    const now = Date.now();
    if (into) into[name] = (into[name] ?? 0) + now - t;
    t = now;
  };
}
