import type { ConnectRouter } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { health } from "@cva/contracts";

const { HealthCheckResponse_ServingStatus: Status } = health;

// grpc.health.v1 for probes (grpc_health_probe, Kubernetes, grpc-js clients). "" is the whole server; each
// registered service name answers the same, since a process serves exactly one service.
export function registerHealth(router: ConnectRouter, serviceNames: string[], ready: () => Promise<boolean>): void {
  const known = new Set(["", ...serviceNames]);
  const status = async (service: string) =>
    !known.has(service) ? Status.SERVICE_UNKNOWN : (await ready()) ? Status.SERVING : Status.NOT_SERVING;
  router.service(health.Health, {
    async check(req) {
      return create(health.HealthCheckResponseSchema, { status: await status(req.service) });
    },
    async *watch(req, ctx) {
      let last: number | undefined;
      while (!ctx.signal.aborted) {
        const s = await status(req.service);
        if (s !== last) {
          last = s;
          yield create(health.HealthCheckResponseSchema, { status: s });
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    },
  });
}
