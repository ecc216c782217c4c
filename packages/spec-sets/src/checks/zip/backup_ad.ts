import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

export const backup_ad: ZipTest = {
  meta: {
    id: "backup_ad",
    name: "Backup Ad",
    data_type: "bool",
    unit: "",
    description: "1 if the zip holds a backup image: a static image of the ad's size (has_backup_ad), else 0.",
  },
  measure(report: ZipReport) {
    return report.hasBackupAd ? { value: 1, detail: `backup image ${report.backupAd}` } : { value: 0, detail: "no static image of the ad's size in the zip" };
  },
};
