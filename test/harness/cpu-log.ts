// Loaded in every test worker before its file (vitest `setupFiles`). With CVA_TEST_CPU_LOG=<path>, appends one JSON line
// per test file: its wall time and the CPU time (user+sys) spent by its worker and by every process the file started
// and waited for (a browser and its renderers, nats-server, a stack's services), from the file's import to its last
// afterAll. Vitest's own durations are wall time only, which on a shared 2-core host says little: this tells a file
// that waits (a render's fixed window, a reservation's expiry) from one that burns the cores, which is what decides
// where a file can run beside others. Off by default (nothing is read or written).
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll } from "vitest";

const log = process.env.CVA_TEST_CPU_LOG;

/** This process's CPU seconds and those of its children it has reaped (the kernel adds a reaped child's own reaped
 *  children to it, so a browser's renderers count once the browser is gone). */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  const stat = readFileSync("/proc/self/stat", "latin1");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 16 and 17 of /proc/<pid>/stat (cutime, cstime), in clock ticks: 100 a second on Linux.
  const children = (Number(f[13]) + Number(f[14])) / 100;
  return (own.user + own.system) / 1e6 + children;
}

if (log) {
  const wall0 = performance.now();
  const cpu0 = cpuSeconds();
  afterAll(({}, suite) => {
    const file = "filepath" in suite ? String(suite.filepath) : suite.name;
    const line = {
      file: file.replace(`${process.cwd()}/`, ""),
      wallS: +((performance.now() - wall0) / 1000).toFixed(1),
      cpuS: +(cpuSeconds() - cpu0).toFixed(1),
    };
    appendFileSync(log, JSON.stringify(line) + "\n");
  });
}
