export { createReportStore, DEFAULT_RETENTION_DAYS, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./store.ts";
export type { ReportStore, ReportStoreOptions, ReportPage } from "./store.ts";
export { createReportStoreService } from "./service.ts";
export { registerReportStoreRoutes } from "./routes.ts";
export { openArtifacts } from "./artifacts.ts";
