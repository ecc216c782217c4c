// Preload for the capacity A/B: SIGUSR2 starts the CPU profiler, the next SIGUSR2 writes <dir>/<pid>.cpuprofile.
const inspector = require("node:inspector");
const fs = require("node:fs");
const dir = process.env.CVA_CPU_PROF_DIR;
if (dir) {
  const s = new inspector.Session();
  s.connect();
  let on = false;
  process.on("SIGUSR2", () => {
    if (!on) {
      on = true;
      s.post("Profiler.enable", () => s.post("Profiler.setSamplingInterval", { interval: 500 }, () => s.post("Profiler.start")));
    } else {
      on = false;
      s.post("Profiler.stop", (err, r) => { if (!err) fs.writeFileSync(`${dir}/${process.pid}.cpuprofile`, JSON.stringify(r.profile)); });
    }
  });
}
