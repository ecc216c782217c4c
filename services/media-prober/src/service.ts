import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { mediaprober } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";

/** Direct ProbeMedia for internal callers; RESOURCE_EXHAUSTED when every slot is busy. */
export function createMediaProberService(direct: DirectRunner): ServiceImpl<typeof mediaprober.MediaProberService> {
  return {
    async probeMedia(req, context) {
      const job = req.job;
      // Checked before a slot is taken, like the runner's own "job is required" / "job.media is required".
      if (job?.input.case === "media" && !job.input.value.url) throw new ConnectError("job.media.url is required", Code.InvalidArgument);
      return create(mediaprober.ProbeMediaResponseSchema, { probe: await direct(job, context.signal, { report: "media", expect: "media" }) });
    },
  };
}
