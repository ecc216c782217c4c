import exifReader from "exif-reader";

/**
 * The EXIF a file carries, as a trafficker needs to see it before the file ships: a few named tags that identify
 * the camera, the software, the author and the time (`metadata.exif`), and the GPS position (`metadata.gps`) — a
 * location left in a published ad is a privacy leak (where the photo was taken, often someone's home).
 */
export interface ImageMetadataFields {
  /** Tag name → value as text; empty when the file has no EXIF. */
  exif: Record<string, string>;
  gps: { present: boolean; latitude: number; longitude: number };
}

/** IFD0 (Image) and Exif IFD (Photo) tags reported by name: who made the picture, with what, when. */
const NAMED: ReadonlyArray<["Image" | "Photo", string]> = [
  ["Image", "Make"],
  ["Image", "Model"],
  ["Image", "Software"],
  ["Image", "DateTime"],
  ["Photo", "DateTimeOriginal"],
  ["Image", "Artist"],
  ["Image", "Copyright"],
  ["Image", "ImageDescription"],
  ["Image", "Orientation"],
  ["Photo", "BodySerialNumber"],
  ["Photo", "CameraOwnerName"],
  ["Photo", "LensModel"],
];

export const NO_METADATA: ImageMetadataFields = { exif: {}, gps: { present: false, latitude: 0, longitude: 0 } };

/** Reads the raw EXIF block (as sharp returns it: "Exif\0\0" + TIFF); an unreadable block gives no tags. */
export function readExif(raw: Uint8Array | undefined): ImageMetadataFields {
  if (!raw || raw.length < 8) return NO_METADATA;
  let parsed: ReturnType<typeof exifReader>;
  try {
    parsed = exifReader(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  } catch {
    return NO_METADATA;
  }
  const exif: Record<string, string> = {};
  for (const [ifd, name] of NAMED) {
    const text = asText((parsed[ifd] as Record<string, unknown> | undefined)?.[name]);
    if (text) exif[name] = text;
  }
  return { exif, gps: gpsPosition(parsed.GPSInfo as Record<string, unknown> | undefined) };
}

function asText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (v instanceof Date) {
    // exif-reader reads the zone-less EXIF time as UTC: its ISO form is the time as written.
    return Number.isNaN(v.getTime()) ? "" : v.toISOString().slice(0, 19).replace("T", " ");
  }
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "";
  if (typeof v === "string") return clean(v);
  // Non-ASCII text arrives as bytes: shown as UTF-8 (what most writers use), replacement characters where it is not.
  if (v instanceof Uint8Array) return clean(new TextDecoder("utf-8").decode(v));
  return "";
}

const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, 200);

/** Degrees, minutes, seconds (EXIF RATIONAL triples) and N/S, E/W references → signed decimal degrees. */
function gpsPosition(g: Record<string, unknown> | undefined): ImageMetadataFields["gps"] {
  const lat = dms(g?.GPSLatitude);
  const lon = dms(g?.GPSLongitude);
  if (lat === undefined || lon === undefined || lat > 90 || lon > 180) return NO_METADATA.gps;
  const south = String(g?.GPSLatitudeRef ?? "").toUpperCase().startsWith("S");
  const west = String(g?.GPSLongitudeRef ?? "").toUpperCase().startsWith("W");
  const r6 = (n: number) => Math.round(n * 1e6) / 1e6;
  return { present: true, latitude: r6(south ? -lat : lat), longitude: r6(west ? -lon : lon) };
}

function dms(v: unknown): number | undefined {
  const parts = Array.isArray(v) ? v : typeof v === "number" ? [v] : undefined;
  if (!parts || parts.length === 0 || parts.length > 3 || !parts.every((p) => typeof p === "number" && Number.isFinite(p) && p >= 0)) return undefined;
  const [d = 0, m = 0, s = 0] = parts as number[];
  return d + m / 60 + s / 3600;
}
