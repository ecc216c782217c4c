import type { ConnectRouter } from "@connectrpc/connect";
import { mediaprober } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";
import { createMediaProberService } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / job.ts / prober.ts.
export function registerMediaProberRoutes(router: ConnectRouter, direct: DirectRunner): void {
  router.service(mediaprober.MediaProberService, createMediaProberService(direct));
}
