import os from "node:os";

// meta.cpu / meta.ram of a report describe the worker that produced it.
export function machineCpu(): string {
  const cpus = os.cpus();
  return cpus.length ? `${cpus[0]!.model.trim()} (${cpus.length} cores)` : "unknown";
}

export function machineRam(): string {
  return `${Math.round(os.totalmem() / 2 ** 30)} GB`;
}
