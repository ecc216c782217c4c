/**
 * The lifecycle every gatherer shares (Lighthouse's model): `start()` enables what it listens to before the creative
 * loads, `stop()` ends collection (and finishes whatever reading is left), `artifact` is plain data from which the
 * report is computed. Gatherers never decide report fields; src/fields and src/report.ts do.
 */
export interface Gatherer<A> {
  readonly artifact: A;
  start(): Promise<void>;
  stop(): Promise<void> | void;
}
