import { imageSize } from "./image-size.ts";

export interface BackupCandidate {
  /** Path in the zip. */
  name: string;
  data: Uint8Array;
  /** Whether any HTML, CSS or JS file of the zip names the file (then it is part of the creative, not its backup). */
  referenced: boolean;
}

const BACKUP_NAME = /(?:^|[/_.\- ])(?:backup|back-up|fallback|static|default|endframe)(?:[_.\-\d ]|$)/i;

/**
 * has_backup_ad: a static image of the ad's own size in the archive — the fallback an ad server shows where the HTML5
 * creative cannot run (IAB HTML5 guidance; CM360: "an image to show when a browser doesn't support HTML5"). An image
 * of that size counts when its name says so (backup, fallback, static, default, endframe) or when no file of the
 * creative uses it: a 300x250 background the creative draws itself is not a backup. Without a size (no ad.size and
 * nothing rendered) there is nothing to match, and no backup is reported.
 */
export function findBackupAd(images: readonly BackupCandidate[], adSize: { width: number; height: number } | undefined): string {
  if (!adSize || adSize.width <= 0 || adSize.height <= 0) return "";
  const ofSize = images.filter((img) => {
    const s = imageSize(img.data);
    return s !== undefined && s.format !== "webp" && s.width === adSize.width && s.height === adSize.height;
  });
  const byName = ofSize.find((img) => BACKUP_NAME.test(img.name.slice(img.name.lastIndexOf("/"))));
  return (byName ?? ofSize.find((img) => !img.referenced))?.name ?? "";
}
