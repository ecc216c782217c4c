import type { EdgeDeps } from "./ports.ts";
import { createAdmission, type Admission } from "./scan/admission.ts";
import { createAuthenticator, type Authenticate } from "./scan/authenticate.ts";
import { createIdempotentScans, type Scans } from "./scan/idempotent-retry.ts";
import { createInFlightCaps } from "./scan/in-flight-caps.ts";
import { createReportReads, type ReportReads } from "./scan/report-reads.ts";
import { createScanSaga } from "./scan/saga.ts";
import { createWorkspaceSettings, type WorkspaceSettings } from "./scan/workspace-settings.ts";

// What both doors — the JSON API (routes/) and the public gRPC service (grpc/service.ts) — call, built once per edge
// from its dependencies: the API key check, the admission of scan requests (the edge's own in-flight count, before a
// body is read), scans (the idempotent-retry protocol over the scan saga), the report reads and the workspaces'
// stored settings. The doors only parse,
// validate and frame; the behaviour lives in these modules.

export interface EdgeUseCases {
  authenticate: Authenticate;
  admission: Admission;
  scans: Scans;
  reports: ReportReads;
  workspaces: WorkspaceSettings;
}

export function createEdgeUseCases(deps: EdgeDeps): EdgeUseCases {
  const caps = createInFlightCaps(deps);
  const workspaces = createWorkspaceSettings(deps);
  const saga = createScanSaga({ ...deps, caps, workspaces });
  return {
    authenticate: createAuthenticator(deps),
    admission: createAdmission({ caps }),
    scans: createIdempotentScans({ ...deps, saga }),
    reports: createReportReads(deps),
    workspaces,
  };
}
