import type { ConnectRouter } from "@connectrpc/connect";
import { mediaprober } from "@cva/contracts";
import type { Logger } from "@cva/platform";
import type { MediaProber } from "./prober.ts";
import { createMediaProberService, type Slots } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / prober.ts.
export function registerMediaProberRoutes(router: ConnectRouter, prober: MediaProber, slots: Slots, opts: { logger?: Logger } = {}): void {
  router.service(mediaprober.MediaProberService, createMediaProberService(prober, slots, opts));
}
