// The image's command: CVA_SERVICE names the process this container runs (compose and Kubernetes set it per
// container), so one variable picks both the process and what the health check probes. Runs the built bundle
// dist/<name>/main.js with plain node; nothing is compiled at run time.
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { SERVICE_NAMES, isServiceName } from "../lib/services.ts";

const name = process.env.CVA_SERVICE;
if (!isServiceName(name)) {
  process.stderr.write(`CVA_SERVICE must name the process to run: one of ${SERVICE_NAMES.join(", ")} (got ${JSON.stringify(name ?? "")})\n`);
  process.exit(64);
}
// This file is dist/main.js; every service bundle sits beside it in dist/<name>/.
await import(pathToFileURL(join(dirname(process.argv[1]!), name, "main.js")).href);
