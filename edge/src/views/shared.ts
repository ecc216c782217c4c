import {
  TestOutcome,
  type Console,
  type Cookie,
  type Dialog,
  type Dimensions,
  type Image,
  type Meta,
  type MissingAsset,
  type Network,
  type Screenshot,
  type Ssl,
  type StorageItem,
  type TestResult,
} from "@cva/contracts";
import { arr, bool, int, map, num, obj, orEmpty, str, type JsonSchema } from "./schema.ts";
import { EMPTY_IMAGE } from "./not-measured.ts";

// Mapping of the shapes shared by several reports (spec "Shared nested shapes"). Explicit, field by field: the JSON
// names are not the proto names (httpOnly, validFrom, timing, scan_duration, ...) and unset messages must still
// produce the documented objects.

const n = (v: bigint | number | undefined): number => (v === undefined ? 0 : Number(v));

// ---- console
export interface ConsoleJson { errors: string[]; warnings: string[] }
export const consoleSchema = obj({ errors: arr(str()), warnings: arr(str()) }, { description: "Errors and warnings produced while loading" });
export const consoleView = (c: Console | undefined): ConsoleJson => ({ errors: [...(c?.errors ?? [])], warnings: [...(c?.warnings ?? [])] });

// ---- cookies
export interface CookieJson {
  domain: string; expires: number; httpOnly: boolean; name: string; path: string; priority: string;
  sameSite?: string; secure: boolean; session: boolean; size: number; value: string;
}
export const cookieSchema = obj(
  {
    domain: str(), expires: num("Unix seconds, may be fractional; -1 for a session cookie"), httpOnly: bool(), name: str(),
    path: str(), priority: str(), sameSite: str("present only when the cookie declared SameSite"), secure: bool(),
    session: bool(), size: int(), value: str(),
  },
  { optional: ["sameSite"] },
);
export function cookieView(c: Cookie): CookieJson {
  const out: CookieJson = {
    domain: c.domain, expires: c.expires, httpOnly: c.httpOnly, name: c.name, path: c.path, priority: c.priority,
    secure: c.secure, session: c.session, size: c.size, value: c.value,
  };
  if (c.sameSite !== undefined) out.sameSite = c.sameSite;
  return out;
}

// ---- dialogs, local storage, missing assets (item shapes the spec leaves open; documented in the OpenAPI)
export const dialogSchema = obj({ type: str("alert, confirm, prompt or beforeunload"), message: str() });
export const dialogView = (d: Dialog) => ({ type: d.type, message: d.message });
export const storageItemSchema = obj({ key: str(), value: str() });
export const storageItemView = (s: StorageItem) => ({ key: s.key, value: s.value });
export const missingAssetSchema = obj({
  url: str(), status: int("HTTP status, or 0 when the request failed without a response"), resource_type: str(), reason: str(),
});
export const missingAssetView = (m: MissingAsset) => ({ url: m.url, status: m.status, resource_type: m.resourceType, reason: m.reason });

// ---- dimensions
export interface DimensionsJson { height: number; width: number; text: string }
export const dimensionsSchema = obj({ height: int(), width: int(), text: str("WIDTHxHEIGHT") });
export function dimensionsView(d: Dimensions | undefined): DimensionsJson {
  const width = d?.width ?? 0;
  const height = d?.height ?? 0;
  return { height, width, text: `${width}x${height}` };
}

// ---- meta
export interface MetaJson {
  api_version: string; cpu: string; creative_type: string; device: string; language: string; ram: string;
  scan_duration: string; server_location: string; timestamp: number; ua: string;
}
export const metaSchema = obj({
  api_version: str(), cpu: str(), creative_type: str("ad_tag, zip, vast, video, image or audio"), device: str(), language: str(), ram: str(),
  scan_duration: str("seconds as a decimal number, e.g. \"2.41\""), server_location: str(), timestamp: int("Unix seconds"), ua: str(),
});
/** `creativeType` and `apiVersion` come from the endpoint: the view, not the worker, decides what the report is. */
export function metaView(m: Meta | undefined, creativeType: "ad_tag" | "zip" | "vast" | "video" | "image" | "audio", apiVersion: "v2" | "v3"): MetaJson {
  return {
    api_version: apiVersion,
    cpu: m?.cpu ?? "",
    creative_type: creativeType,
    device: m?.device ?? "",
    language: m?.language ?? "",
    ram: m?.ram ?? "",
    scan_duration: (m?.scanDurationSeconds ?? 0).toFixed(2),
    server_location: m?.serverLocation ?? "",
    timestamp: n(m?.timestamp),
    ua: m?.ua ?? "",
  };
}

// ---- network
export const networkResponseSchema = obj(
  {
    bytes: int(), headers: map(str(), "lower-case header names to values"), is_pixel: bool(), method: str(),
    resource_type: str(), server_ip: str(), ssl: bool(),
    ssl_info: orEmpty(
      obj({ protocol: str(), validFrom: int("Unix seconds"), validTo: int("Unix seconds") }),
      "the TLS certificate of the response; {} for a plain http:// response",
    ),
    status: int(), status_text: str(), timing: int("milliseconds"), url: str(),
    started: int("milliseconds after the navigation to the creative began, when the request was sent (a waterfall's left edge)"),
    failure: str("why the request did not complete as sent: a network error, a refusal by the outbound policy, a browser upgrade from http://, a cut record; \"\" when it completed"),
  },
);
export const networkSchema = obj({
  load_size: obj({ host_initiated_subload: int(), initial_load: int(), total: int() }, { description: "bytes" }),
  measurement_pixels: int(),
  responses: arr(networkResponseSchema),
});
export function networkView(net: Network | undefined) {
  return {
    load_size: {
      host_initiated_subload: n(net?.loadSize?.hostInitiatedSubload),
      initial_load: n(net?.loadSize?.initialLoad),
      total: n(net?.loadSize?.total),
    },
    measurement_pixels: net?.measurementPixels ?? 0,
    responses: (net?.responses ?? []).map((r) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) headers[k.toLowerCase()] = v;
      return {
        bytes: n(r.bytes), headers, is_pixel: r.isPixel, method: r.method, resource_type: r.resourceType,
        server_ip: r.serverIp, ssl: r.ssl,
        ssl_info: r.sslInfo ? { protocol: r.sslInfo.protocol, validFrom: n(r.sslInfo.validFrom), validTo: n(r.sslInfo.validTo) } : {},
        status: r.status, status_text: r.statusText, timing: n(r.timingMs), url: r.url,
        started: n(r.startedMs), failure: r.failure,
      };
    }),
  };
}

// ---- images
export interface ImageJson { bytes: number; mime_type: string; url: string }
export const imageSchema = obj(
  { bytes: int("length of the image body; 0 when there is no image"), mime_type: str(), url: str("empty when there is no image") },
  { description: "always present; {bytes: 0, mime_type: \"\", url: \"\"} when there is no image" },
);
/** A video's poster (VAST media files and raw video files alike; media-prober video-pass.ts posterChains). */
export const posterSchema: JsonSchema = {
  ...imageSchema,
  description:
    "a representative frame near the middle, JPEG: the keyframe nearest mid-duration, or, when that keyframe is black " +
    "(98 % of pixels dark), the first frame after it that is not, within 10 s (an all-black video: the keyframe); not the " +
    "exact mid-duration frame. Always present; {bytes: 0, mime_type: \"\", url: \"\"} when there is no image",
};
/** Where each tile of a media file's film strip comes from (media-prober video-pass.ts stripSelect). */
export const filmStripTimesSchema = arr(
  int("ms from the start of the video"),
  "the presentation time of each film_strip tile's frame, left to right: the keyframes nearest to ten equally spaced " +
    "times; empty when there is no strip or the file had no keyframe index (its tiles are then the first frame of each " +
    "tenth, times not known ahead)",
);
export const filmStripTimesView = (times: readonly bigint[] | undefined): number[] => (times ?? []).map(Number);
/** The image, or the empty image: an image key is never missing. */
export const imageView = (i: Image | undefined): ImageJson =>
  i && i.id ? { bytes: n(i.bytes), mime_type: i.mimeType, url: i.url } : { ...EMPTY_IMAGE };
const colorImageSchema = obj({ bytes: int(), color: str("dominant colour, #rrggbb"), mime_type: str(), url: str() });
export const screenshotSchema = obj({ highres: colorImageSchema, thumbnail: colorImageSchema });
const colorImage = (i: Image | undefined) => ({ bytes: n(i?.bytes), color: i?.color ?? "", mime_type: i?.mimeType ?? "", url: i?.url ?? "" });
export const screenshotView = (s: Screenshot | undefined) => ({ highres: colorImage(s?.highres), thumbnail: colorImage(s?.thumbnail) });

// ---- ssl
export const sslSchema = (listName: "insecure_urls" | "non_secure_urls") =>
  obj({ compliant: bool(), [listName]: arr(str(), "URLs loaded over http://") });
export const sslView = (s: Ssl | undefined, listName: "insecure_urls" | "non_secure_urls") => ({
  compliant: s?.compliant ?? false,
  [listName]: [...(s?.insecureUrls ?? [])],
});

// ---- tests
export const RESULT_NAME: Record<number, string> = {
  [TestOutcome.PASSED]: "passed",
  [TestOutcome.FAILED]: "failed",
  [TestOutcome.ERROR]: "error",
  [TestOutcome.UNSPECIFIED]: "error",
};
export const testResultSchema = (withTestId: boolean) =>
  obj(
    {
      ...(withTestId ? { test: str("test id") } : {}),
      name: str(), data_type: str("e.g. int, float"), unit: str(),
      expected: { type: ["number", "string"], description: "a number, or a range lo#hi, or a textual expectation" },
      expected_text: str(), actual: num("the measured value; absent when the test could not be evaluated (result error)"),
      operator: str("<, <=, >, >=, ==, or >< (between two bounds)"), result: str("passed, failed or error"),
      message: str(
        "why: for passed and failed, what was measured against what was expected and what the test found (e.g. which " +
          "media file cannot play); for error, why the test could not be evaluated (e.g. a value that was not measured)",
      ),
    },
    { optional: ["expected", "actual"] },
  );
export function testResultView(t: TestResult, withTestId: boolean) {
  return {
    ...(withTestId ? { test: t.test } : {}),
    name: t.name,
    data_type: t.dataType,
    unit: t.unit,
    ...(t.expected.case !== undefined ? { expected: t.expected.value } : {}),
    expected_text: t.expectedText,
    // A test that could not be evaluated has no measured value; its proto actual is a placeholder.
    ...(t.result === TestOutcome.PASSED || t.result === TestOutcome.FAILED ? { actual: t.actual } : {}),
    operator: t.operator,
    result: RESULT_NAME[t.result] ?? "error",
    message: t.message,
  };
}
export { obj, arr, int, num, str, bool, map, orEmpty, type JsonSchema };
