import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf } from "../context.ts";
import { inAds, rule, under } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V4_UP, V41_UP } from "../versions.ts";
import type { LintRule } from "../types.ts";
import type { XmlNode } from "../../xml-tree.ts";

// Connected TV and ad stitching (SSAI): what a TV player or a stitching server needs that a web player may do without —
// a mezzanine to transcode from, progressive MP4 renditions, several quality levels, bitrates to choose by.

const group = "ctv" as const;
const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined);
const playable = (mfs: XmlNode) => kids(mfs, "MediaFile").filter((m) => (attrOf(m, "apiFramework") ?? "").trim() === "" && /^(video|audio)\//i.test((attrOf(m, "type") ?? "").trim()));

export const ctvRules: LintRule[] = [
  rule({
    id: "vast.ctv.mezzanine.recommended", group, severity: "info", versions: V4_UP, spec: SPEC.ctv,
    title: "VAST 4.x: a video Linear offers a <Mezzanine> for ad stitching",
    *check(ctx) {
      for (const mfs of inAds(ctx, "inline", "MediaFiles")) {
        const video = playable(mfs).some((m) => /^video\//i.test(attrOf(m, "type") ?? ""));
        if (video && !kid(mfs, "Mezzanine")) yield { node: mfs, message: "<MediaFiles> has no <Mezzanine>: SSAI servers and CTV platforms transcode from the mezzanine and may refuse the ad (error 406) without it; add the high-quality source file" };
      }
    },
  }),
  rule({
    id: "vast.ctv.mezzanine.delivery", group, severity: "warning", versions: V41_UP, spec: SPEC.mezzanine,
    title: "a <Mezzanine> is delivered progressively",
    *check(ctx) {
      for (const m of under(ctx, "MediaFiles", "Mezzanine")) {
        if ((attrOf(m, "delivery") ?? "").trim() === "streaming") yield { node: m, message: '<Mezzanine delivery="streaming">: the mezzanine is downloaded whole and transcoded; serve it as a progressive file (delivery="progressive")' };
      }
    },
  }),
  rule({
    id: "vast.ctv.mezzanine.resolution", group, severity: "info", versions: V41_UP, spec: SPEC.ctv,
    title: "a <Mezzanine> is at least 1920x1080",
    *check(ctx) {
      for (const m of under(ctx, "MediaFiles", "Mezzanine")) {
        const w = num(attrOf(m, "width"));
        const h = num(attrOf(m, "height"));
        if (w !== undefined && h !== undefined && (Math.max(w, h) < 1920 || Math.min(w, h) < 1080)) {
          yield { node: m, message: `<Mezzanine> is ${w}x${h}: transcoding for TV screens starts from the best source; provide 1920x1080 or larger` };
        }
      }
    },
  }),
  rule({
    id: "vast.media-file.renditions", group, severity: "info", versions: V4_UP, spec: SPEC.renditions,
    title: "VAST 4.x: three renditions (high, medium, low) of the media",
    *check(ctx) {
      for (const mfs of inAds(ctx, "inline", "MediaFiles")) {
        const files = playable(mfs);
        if (files.length > 0 && files.length < 3) yield { node: mfs, message: `<MediaFiles> has ${files.length} rendition${files.length > 1 ? "s" : ""}: VAST 4 asks for three ready-to-serve files (high, medium, low quality) so players on slow links still play; add renditions` };
      }
    },
  }),
  rule({
    id: "vast.ctv.media-file.mp4", group, severity: "info", versions: ALL, spec: `${SPEC.mediaFile}; IAB Digital Video Ad Format Guidelines (MP4/H.264 for CTV and apps)`,
    title: "a video Linear has a progressive video/mp4 file",
    *check(ctx) {
      for (const mfs of inAds(ctx, "inline", "MediaFiles")) {
        const files = playable(mfs);
        if (files.length === 0 || !files.some((m) => /^video\//i.test(attrOf(m, "type") ?? ""))) continue;
        const mp4 = files.some((m) => (attrOf(m, "type") ?? "").trim().toLowerCase() === "video/mp4" && (attrOf(m, "delivery") ?? "").trim() === "progressive");
        if (!mp4) yield { node: mfs, message: "<MediaFiles> has no progressive video/mp4 file: CTV devices, apps and SSAI servers play H.264 MP4 everywhere, other formats only in some; add an MP4 rendition" };
      }
    },
  }),
  rule({
    id: "vast.ctv.media-file.bitrate", group, severity: "info", versions: ALL, spec: SPEC.mediaFile,
    title: "a progressive media file declares its bitrate",
    *check(ctx) {
      for (const m of under(ctx, "MediaFiles", "MediaFile", "inline")) {
        if ((attrOf(m, "delivery") ?? "").trim() !== "progressive" || (attrOf(m, "apiFramework") ?? "") !== "") continue;
        if (attrOf(m, "bitrate") === undefined && attrOf(m, "minBitrate") === undefined && attrOf(m, "maxBitrate") === undefined) {
          yield { node: m, message: "<MediaFile> declares no bitrate: players pick the rendition for the connection by it; add bitrate (kbit/s)" };
        }
      }
    },
  }),
  rule({
    id: "vast.ctv.media-file.hd", group, severity: "info", versions: ALL, spec: `${SPEC.mediaFile}; IAB Digital Video Ad Format Guidelines (CTV: HD renditions)`,
    title: "a video Linear has an HD (720p or larger) rendition",
    *check(ctx) {
      for (const mfs of inAds(ctx, "inline", "MediaFiles")) {
        const video = playable(mfs).filter((m) => /^video\//i.test(attrOf(m, "type") ?? ""));
        const sized = video.filter((m) => num(attrOf(m, "width")) !== undefined && num(attrOf(m, "height")) !== undefined);
        if (sized.length === 0) continue;
        if (!sized.some((m) => Math.min(num(attrOf(m, "width"))!, num(attrOf(m, "height"))!) >= 720)) {
          yield { node: mfs, message: "<MediaFiles> has no rendition of 720p or more: on TV screens the ad is upscaled and looks poor; add a 1280x720 or 1920x1080 file" };
        }
      }
    },
  }),
  rule({
    id: "vast.ctv.closed-captions.recommended", group, severity: "info", versions: V41_UP, spec: SPEC.closedCaptions,
    title: "VAST 4.1+: a video Linear offers closed captions",
    *check(ctx) {
      for (const mfs of inAds(ctx, "inline", "MediaFiles")) {
        const video = playable(mfs).some((m) => /^video\//i.test(attrOf(m, "type") ?? ""));
        if (video && kids(kid(mfs, "ClosedCaptionFiles"), "ClosedCaptionFile").every((f) => textOf(f) === "")) {
          yield { node: mfs, message: "<MediaFiles> has no <ClosedCaptionFiles>: TV platforms (FCC rules in the US) and accessibility need captions; add a WebVTT or TTML file" };
        }
      }
    },
  }),
];
