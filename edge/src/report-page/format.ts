// Numbers as people read them: a unit, as many decimals as the magnitude deserves, yes/no for flags. Every function
// returns plain text; the caller escapes it (esc) like any other string.

/** Between a number and its unit: a non-breaking space, so "5.1 %" never breaks across lines. */
const NB = "\u00a0";

const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimals = [0, 1, 2].map((d) => new Intl.NumberFormat("en-US", { maximumFractionDigits: d }));
const small = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 2 });

/** 1234 → "1,234"; 5.0988 → "5.1"; 13.35 → "13.4"; 0.0123 → "0.012". */
export function num(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return grouped.format(n);
  const a = Math.abs(n);
  if (a >= 100) return decimals[0]!.format(n);
  if (a >= 10) return decimals[1]!.format(n);
  if (a >= 0.1) return decimals[2]!.format(n);
  return small.format(n);
}

/** One decimal at most: percentages, loudness. */
export const num1 = (n: number): string => (Number.isFinite(n) ? decimals[1]!.format(n) : String(n));

/** Decimal units (KB = 1000 bytes), as the guideline tests count them. */
export function bytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  if (a < 1000) return `${grouped.format(n)}${NB}B`;
  if (a < 1e6) return `${num(n / 1e3)}${NB}KB`;
  if (a < 1e9) return `${num(n / 1e6)}${NB}MB`;
  return `${num(n / 1e9)}${NB}GB`;
}

/** Milliseconds: "250 ms" below a second, "1.5 s" above. */
export function ms(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return Math.abs(n) < 1000 ? `${num(Math.round(n))}${NB}ms` : `${num(n / 1000)}${NB}s`;
}

export const seconds = (s: number): string => (Number.isFinite(s) ? `${num(s)}${NB}s` : String(s));

/** Bits per second: "128 kbps", "1.9 Mbps". */
export function bitRate(bps: number): string {
  if (!Number.isFinite(bps)) return String(bps);
  return Math.abs(bps) >= 1e6 ? `${num(bps / 1e6)}${NB}Mbps` : `${num(bps / 1e3)}${NB}kbps`;
}

export function hertz(hz: number): string {
  if (!Number.isFinite(hz)) return String(hz);
  return Math.abs(hz) >= 1000 ? `${num(hz / 1000)}${NB}kHz` : `${num(hz)}${NB}Hz`;
}

export const yesNo = (b: unknown): string => (b ? "yes" : "no");

/** Unix seconds → "2025-11-21 12:00:00 UTC". */
export function dateTime(unixSeconds: number): string {
  if (!Number.isFinite(unixSeconds) || unixSeconds <= 0) return "";
  const d = new Date(unixSeconds * 1000);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.toISOString().slice(0, 19).replace("T", " ")}${NB}UTC`;
}

/** A value in one of the units the guideline tests use (packages/spec-sets: unit of each test). */
export function withUnit(value: number, unit: string): string {
  switch (unit) {
    case "":
    case "count":
      return num(value);
    case "%":
      return `${num1(value)}${NB}%`;
    case "ms":
      return ms(value);
    case "s":
      return seconds(value);
    case "bytes":
      return bytes(value);
    case "px":
      return `${grouped.format(value)}${NB}px`;
    case "LUFS":
    case "LU":
    case "dB":
    case "dBTP":
      return `${num1(value)}${NB}${unit}`;
    case "Hz":
      return hertz(value);
    default:
      return `${num(value)}${NB}${unit}`;
  }
}

type Kind = "ms" | "bytes" | "bps" | "hz" | "fps" | "s" | "lufs" | "lu" | "dbtp" | "mbps" | "px" | "unix" | "percent";

// Report fields by name (the OpenAPI document gives each its unit); the same names in a report added later get the
// same treatment, and the suffix rules below catch the usual spellings of new ones.
const BY_KEY: Record<string, Kind> = {
  time_to_visual_start: "ms", animation_duration: "ms", dom_content_loaded: "ms", cpu_usage: "ms", load_time: "ms",
  timing: "ms", started: "ms",
  memory_usage: "bytes", bytes: "bytes", file_size: "bytes", zip_size: "bytes", unzipped_size: "bytes",
  reencoded_bytes: "bytes", initial_load: "bytes", host_initiated_subload: "bytes", size: "bytes",
  bit_rate: "bps", bitrate_bps: "bps", sample_rate: "hz", frame_rate: "fps", duration: "s",
  lufs: "lufs", integrated_lufs: "lufs", lra: "lu", true_peak: "dbtp", download_speed: "mbps",
  width: "px", height: "px", timestamp: "unix", expires: "unix", validFrom: "unix", validTo: "unix",
  valid_from: "unix", valid_to: "unix",
};

function kindOf(key: string): Kind | undefined {
  if (BY_KEY[key]) return BY_KEY[key];
  if (/_ms$/.test(key)) return "ms";
  if (/(^|_)bytes$/.test(key)) return "bytes";
  if (/_px$/.test(key)) return "px";
  if (/_hz$/.test(key)) return "hz";
  if (/_lufs$/.test(key)) return "lufs";
  if (/_(percent|pct)$/.test(key)) return "percent";
  if (/_(seconds|s)$/.test(key)) return "s";
  return undefined;
}

/** A report field's value as text, by its name: "memory_usage" 1048576 → "1 MB", "secure" true → "yes". */
export function byKey(key: string, value: unknown): string {
  if (typeof value === "boolean") return yesNo(value);
  if (value === null || value === undefined) return "";
  if (typeof value !== "number") return String(value);
  switch (kindOf(key)) {
    case "ms":
      return ms(value);
    case "bytes":
      return bytes(value);
    case "bps":
      return bitRate(value);
    case "hz":
      return hertz(value);
    case "fps":
      return `${num(value)}${NB}fps`;
    case "s":
      return seconds(value);
    case "lufs":
      return `${num1(value)}${NB}LUFS`;
    case "lu":
      return `${num1(value)}${NB}LU`;
    case "dbtp":
      return `${num1(value)}${NB}dBTP`;
    case "mbps":
      return `${num(value)}${NB}MB/s`;
    case "px":
      return `${grouped.format(value)}${NB}px`;
    case "percent":
      return `${num1(value)}${NB}%`;
    case "unix":
      return value === -1 ? "session" : dateTime(value) || num(value);
    default:
      return num(value);
  }
}

// Field names whose words are not what a person calls them (ffprobe's abbreviations, acronyms).
const LABELS: Record<string, string> = {
  pix_fmt: "Pixel format", hdr: "HDR", frame_rate_fraction: "Frame rate (exact)", iab_size: "IAB size", icc_profile: "ICC profile",
  lufs: "Loudness", lra: "Loudness range", sha256: "SHA-256", http_code: "HTTP status", url: "URL", ssl: "SSL", cors: "CORS",
};

/**
 * "time_to_visual_start" → "Time to visual start"; "httpOnly" → "Http only"; "leading_black_ms" → "Leading black": a
 * unit suffix the value is formatted in (byKey: "0 ms", "2 KB") is not repeated in the label.
 */
export function label(key: string): string {
  if (LABELS[key]) return LABELS[key];
  const unitless = kindOf(key) && /_(ms|bytes|px|hz|lufs|percent|pct|seconds|s)$/.test(key) ? key.replace(/_[a-z]+$/, "") : key;
  const words = unitless.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").trim().toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
}
