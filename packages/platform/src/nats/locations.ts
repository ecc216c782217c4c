import { LOCATIONS } from "./names.ts";

// SERVER_LOCATION names the locations a worker serves: one ("usa") or several ("usa,nld"). Several is how one machine
// (a development stack, a small deployment) answers `targeting.country` for every location without a replica per
// location; in production each location usually runs its own replicas, one location each.

/** Every location a worker may serve, as a SERVER_LOCATION value: what `npm start` serves by default. */
export const ALL_LOCATIONS = LOCATIONS.join(",");

/**
 * The locations of a SERVER_LOCATION value, in the order written, without duplicates. Unknown names are refused at
 * start-up: the NATS permissions name each location's consumer (nats/permissions.ts), so a worker for a location
 * not in LOCATIONS could never pull a job and would only look alive.
 */
export function parseServerLocations(value: string | undefined, fallback = "usa"): string[] {
  const raw = value === undefined || value.trim() === "" ? fallback : value;
  const out: string[] = [];
  for (const part of raw.split(",")) {
    const loc = part.trim().toLowerCase();
    if (loc === "") continue;
    if (!(LOCATIONS as readonly string[]).includes(loc)) {
      throw new Error(`SERVER_LOCATION: unknown location ${JSON.stringify(part.trim())}; known: ${LOCATIONS.join(", ")} (comma-separated for several)`);
    }
    if (!out.includes(loc)) out.push(loc);
  }
  if (out.length === 0) throw new Error(`SERVER_LOCATION: no location in ${JSON.stringify(raw)}; known: ${LOCATIONS.join(", ")}`);
  return out;
}

/**
 * The locations of a worker's `location` option: a single name or a comma-separated list. Not checked against
 * LOCATIONS (that is parseServerLocations' job, on the environment); tests may use names of their own.
 */
export function splitLocations(location: string): string[] {
  const out = [...new Set(location.split(",").map((l) => l.trim()).filter((l) => l !== ""))];
  if (out.length === 0) throw new Error("a worker needs at least one location");
  return out;
}

/**
 * The location a job runs for on a worker serving `served`: its targeting.country when the worker serves it (the
 * requester routed it there), else the worker's first location (a direct call without targeting).
 */
export function servedLocationOf(country: string | undefined, served: readonly string[]): string {
  return country && served.includes(country) ? country : served[0]!;
}
