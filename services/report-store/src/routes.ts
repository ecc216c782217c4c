import type { ConnectRouter } from "@connectrpc/connect";
import { reportstore } from "@cva/contracts";
import type { ArtifactStore, Logger } from "@cva/platform";
import { createReportStoreService } from "./service.ts";
import type { ReportStore } from "./store.ts";
import type { WorkspaceSettingsStore } from "./workspace-settings.ts";

// Only wiring: the behaviour lives in service.ts / store.ts / workspace-settings.ts.
export function registerReportStoreRoutes(
  router: ConnectRouter, store: ReportStore, artifacts: ArtifactStore, logger?: Logger, workspaces?: WorkspaceSettingsStore,
): void {
  router.service(reportstore.ReportStoreService, createReportStoreService(store, artifacts, logger, workspaces));
}
