/**
 * The timeline of an SVG document used as an image (`<img src=….svg>`, a CSS background): its SMIL animations and
 * CSS animations run inside the image, where no DOM probe reaches (an SVG image is a document of its own, without
 * scripts), so — as for an animated GIF's frame delays — its timing is read from its bytes.
 *
 * SMIL (`animate`, `animateTransform`, `animateMotion`, `animateColor`, `set`): begin (offsets and syncbases
 * `id.begin±t` / `id.end±t`; event begins such as `click` never start without input and are skipped, as is
 * `indefinite`), dur, repeatCount, repeatDur, end (offsets). An element's motion ends with its active duration.
 * CSS: `animation` shorthands and the `animation-duration`/`-delay`/`-iteration-count` longhands of one rule or style
 * attribute. The timeline runs from when the image starts playing (about when it has loaded, like a GIF).
 *
 * The result has the animated image shape: `durationMs` = when the last finite animation ends, `plays` 1, or 0 when
 * an animation that has started repeats forever (then `durationMs` is its period); undefined when nothing in the
 * document animates.
 */
export interface SvgAnimation {
  frames: number;
  durationMs: number;
  plays: number;
}

/** Documents larger than this are not read (the network gatherer reads bodies up to it). */
export const MAX_SVG_BYTES = 1024 * 1024;
const MAX_ELEMENTS = 2_000;

/** A SMIL clock value in ms ("2s", "500ms", "1.5", "0:00:02.5", "1min", "1h"); NaN when it is not one. */
export function clockMs(v: string): number {
  const t = v.trim();
  let m = /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(t);
  if (m) return (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1000;
  m = /^(\d{1,2}):(\d{2}(?:\.\d+)?)$/.exec(t);
  if (m) return (Number(m[1]) * 60 + Number(m[2])) * 1000;
  m = /^([+-]?(?:\d+\.?\d*|\.\d+))\s*(h|min|s|ms)?$/.exec(t);
  if (!m) return NaN;
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  return n * (unit === "h" ? 3_600_000 : unit === "min" ? 60_000 : unit === "ms" ? 1 : 1000);
}

const attrsOf = (tag: string): Map<string, string> => {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([A-Za-z_][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out.set(m[1]!, m[2] ?? m[3] ?? "");
  return out;
};

interface Smil { id?: string; begin: string; dur: string; repeatCount?: string; repeatDur?: string; end?: string; set: boolean }

/** Begin or end of an element: offsets and syncbases resolved against `times`; undefined when none resolves (yet). */
function resolveTimes(list: string, times: Map<string, { begin?: number; end?: number }>): number | undefined {
  let best: number | undefined;
  for (const raw of list.split(";")) {
    const v = raw.trim();
    if (!v) continue;
    let t = clockMs(v);
    if (Number.isNaN(t)) {
      const m = /^([A-Za-z_][\w.-]*?)\.(begin|end)\s*(?:([+-])\s*(.+))?$/.exec(v);
      if (!m) continue; // an event (click, id.click), accessKey, wallclock, indefinite: never without input
      const ref = times.get(m[1]!)?.[m[2] as "begin" | "end"];
      if (ref === undefined) continue;
      const off = m[4] ? clockMs(m[4]) : 0;
      if (Number.isNaN(off)) continue;
      t = ref + (m[3] === "-" ? -off : off);
    }
    best = best === undefined ? t : Math.min(best, t);
  }
  return best;
}

function smilElements(text: string): Smil[] {
  const out: Smil[] = [];
  for (const m of text.matchAll(/<(?:[\w-]+:)?(animate|animateTransform|animateMotion|animateColor|set)\b([^>]*)>/g)) {
    if (out.length >= MAX_ELEMENTS) break;
    const a = attrsOf(m[2] ?? "");
    out.push({
      id: a.get("id"), begin: a.get("begin") ?? "0s", dur: a.get("dur") ?? "", repeatCount: a.get("repeatCount"),
      repeatDur: a.get("repeatDur"), end: a.get("end"), set: m[1] === "set",
    });
  }
  return out;
}

/** [end of motion ms, or Infinity; period ms] of one SMIL element once its begin is known. */
function smilSpan(e: Smil, begin: number, times: Map<string, { begin?: number; end?: number }>): [number, number] {
  const simple = clockMs(e.dur);
  const dur = Number.isFinite(simple) && simple > 0 ? simple : 0;
  let active: number;
  if (e.repeatCount === "indefinite" || e.repeatDur === "indefinite") active = Infinity;
  else {
    active = dur;
    const rc = Number(e.repeatCount);
    if (e.repeatCount !== undefined && Number.isFinite(rc) && rc > 0) active = dur * rc;
    const rd = e.repeatDur !== undefined ? clockMs(e.repeatDur) : NaN;
    if (Number.isFinite(rd) && rd >= 0) active = e.repeatCount !== undefined && Number.isFinite(rc) ? Math.min(active, rd) : rd;
  }
  // A `set` without dur changes its value once, at begin; an animation without a simple duration does not move.
  if (dur === 0 && !Number.isFinite(active)) active = 0;
  if (e.end) {
    const end = resolveTimes(e.end, times);
    if (end !== undefined && end >= begin) active = Math.min(active, end - begin);
  }
  return [begin + active, dur];
}

interface CssAnim { durationMs: number; delayMs: number; count: number }

/** CSS animations declared in `<style>` rules and style attributes. */
function cssAnimations(text: string): CssAnim[] {
  const blocks: string[] = [];
  for (const m of text.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)) {
    for (const b of (m[1] ?? "").replace(/<!\[CDATA\[|\]\]>/g, "").matchAll(/\{([^{}]*)\}/g)) blocks.push(b[1] ?? "");
  }
  for (const m of text.matchAll(/\bstyle\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) blocks.push(m[1] ?? m[2] ?? "");
  const out: CssAnim[] = [];
  const time = (v: string) => {
    const m = /^(-?(?:\d+\.?\d*|\.\d+))(ms|s)$/.exec(v.trim());
    return m ? Number(m[1]) * (m[2] === "ms" ? 1 : 1000) : NaN;
  };
  for (const block of blocks.slice(0, MAX_ELEMENTS)) {
    const decl = (name: string) => new RegExp(`(?:^|;)\\s*${name}\\s*:\\s*([^;]+)`, "i").exec(block)?.[1]?.trim();
    const shorthand = decl("animation");
    const list: CssAnim[] = [];
    if (shorthand && shorthand !== "none") {
      for (const one of shorthand.split(",")) {
        const tokens = one.trim().split(/\s+/);
        const times = tokens.map(time).filter((t) => !Number.isNaN(t));
        const countToken = tokens.find((t) => t === "infinite" || /^\d+(\.\d+)?$/.test(t));
        list.push({ durationMs: times[0] ?? 0, delayMs: times[1] ?? 0, count: countToken === "infinite" ? Infinity : countToken ? Number(countToken) : 1 });
      }
    }
    const durations = decl("animation-duration")?.split(",").map(time);
    if (durations) {
      const delays = decl("animation-delay")?.split(",").map(time) ?? [];
      const counts = decl("animation-iteration-count")?.split(",").map((c) => (c.trim() === "infinite" ? Infinity : Number(c))) ?? [];
      durations.forEach((d, i) => {
        const at = list[i] ?? { durationMs: 0, delayMs: 0, count: 1 };
        at.durationMs = Number.isNaN(d) ? at.durationMs : d;
        const delay = delays[i % Math.max(1, delays.length)];
        if (delay !== undefined && !Number.isNaN(delay)) at.delayMs = delay;
        const count = counts[i % Math.max(1, counts.length)];
        if (count !== undefined && !Number.isNaN(count)) at.count = count;
        list[i] = at;
      });
    }
    out.push(...list.filter((a) => a.durationMs > 0 && a.count > 0));
  }
  return out;
}

export function svgAnimation(bytes: Uint8Array): SvgAnimation | undefined {
  if (bytes.byteLength > MAX_SVG_BYTES) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (!/<svg[\s>]/i.test(text)) return undefined;
  let end = 0;
  let period = 0;
  let forever = false;
  let animated = false;

  // SMIL: resolve begins in passes, so a syncbase chain (b begins at a.end) resolves whatever the document order.
  const elems = smilElements(text);
  const times = new Map<string, { begin?: number; end?: number }>();
  const spans = new Map<Smil, [number, number, number]>();
  for (let pass = 0; pass < 8; pass++) {
    let progress = false;
    for (const e of elems) {
      if (spans.has(e)) continue;
      const begin = resolveTimes(e.begin, times);
      if (begin === undefined) continue;
      const [stop, dur] = smilSpan(e, begin, times);
      spans.set(e, [begin, stop, dur]);
      if (e.id) times.set(e.id, { begin, end: stop });
      progress = true;
    }
    if (!progress) break;
  }
  for (const [e, [begin, stop, dur]] of spans) {
    animated = true;
    if (!Number.isFinite(stop)) {
      forever = true;
      period = Math.max(period, dur);
    } else end = Math.max(end, e.set && dur === 0 ? begin : stop);
  }

  for (const a of cssAnimations(text)) {
    animated = true;
    if (!Number.isFinite(a.count)) {
      forever = true;
      period = Math.max(period, a.durationMs);
    } else end = Math.max(end, a.delayMs + a.durationMs * a.count);
  }
  if (!animated) return undefined;
  if (forever) return { frames: 2, durationMs: Math.round(period || end), plays: 0 };
  return end > 0 ? { frames: 2, durationMs: Math.round(end), plays: 1 } : undefined;
}
