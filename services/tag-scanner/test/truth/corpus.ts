// The truth corpus: small creatives built like real banners, each with what a person watching it would report.
// The values are the truth, not what the scanner says today; see README.md for what each expectation means.
import { Device, type TagReport } from "@cva/contracts";
import { CREATIVE_PAGE, TRUTH_TIMEOUTS, caseJob, type Fixtures } from "./fixtures.ts";

export interface Expect {
  /** dimensions: the painted size, CSS px. */
  size: [number, number];
  /** animation_duration_ms within [min, max]; "endless" = still moving at the render deadline (-1). */
  animation?: { min: number; max: number } | "endless";
  border?: boolean;
  /** insecure: the http:// URLs exactly as the creative wrote them, as a set (order free, nothing missing or extra). */
  ssl?: { compliant: boolean; insecure?: string[] };
  /** A cookie that must be in `cookies`; only the listed attributes are compared. */
  cookie?: { name: string; httpOnly?: boolean; secure?: boolean; sameSite?: string };
  /** A cookie the browser refused: it must not be reported as dropped. */
  noCookie?: string;
  /** The click-through; only the listed fields are compared, and the screenshot object must be there. */
  landing?: { tab: "new_tab" | "same_tab" | "none"; url?: string; title?: string; working?: boolean };
  /** creative_rendered; true unless stated. */
  rendered?: boolean;
  video?: boolean;
  docWrite?: boolean;
  iframes?: number;
}

export interface Case {
  id: string;
  /** One line: which real banner pattern this is. */
  pattern: string;
  html: (f: Fixtures) => string;
  /** Ask for the landing page (v3 capture_landing_page). */
  landing?: boolean;
  /** The scan's device (targeting.device); desktop unless stated. */
  device?: Device;
  expect: Expect | ((f: Fixtures) => Expect);
}

// Wide enough for a loaded 2-core machine (the first paint, which the duration counts from, comes late there while
// the creative's own timers already run: hence more room below than above), narrow enough to catch a watch that
// cuts a hold or a slide short.
const around = (v: number, tol = 700) => ({ min: v - tol - 300, max: v + tol });
const AD = "position:relative;width:300px;height:250px;overflow:hidden;font-family:Arial,sans-serif";
const CTA = `<div style="position:absolute;left:90px;bottom:24px;width:120px;height:32px;line-height:32px;border-radius:4px;background:#ffb400;color:#111;text-align:center;font-weight:bold">Shop now</div>`;
const headline = (text: string, colour = "#fff") => `<div style="position:absolute;left:20px;top:30px;width:260px;font-size:24px;font-weight:bold;color:${colour}">${text}</div>`;
/** A finished, motionless 300x250 banner in `bg`. */
const still = (bg: string, extra = "") => `<div style="${AD};background:${bg}">${headline("Spring sale")}${CTA}${extra}</div>`;
const SLIDES = `<style>.slide{position:absolute;inset:0;display:none;color:#fff;font:bold 28px Arial,sans-serif;padding:40px 20px}</style>
<div style="${AD};background:#222"><div class="slide" style="display:block;background:#c0392b">New season</div>
<div class="slide" style="background:#2980b9">New colours</div><div class="slide" style="background:#27ae60">Shop now</div></div>`;

/**
 * A GSAP-like timeline on a requestAnimationFrame ticker: a 1 s tween, `repeat` more times after `gap` ms each
 * (-1 = forever), no yoyo (each repeat jumps back to the start). The ticker keeps ticking through the holds and,
 * like gsap.ticker's autoSleep, falls asleep only 120 idle frames after the timeline completed.
 */
const gsapLike = (repeat: number, gap: number) => `<div style="${AD};background:#0b2545">${headline("Fly with us")}
<div id="plane" style="position:absolute;left:10px;top:120px;width:50px;height:30px;background:#eef4ed;border-radius:15px"></div></div>
<script>(function () {
  var plane = document.getElementById("plane"), start = performance.now(), dur = 1000, gap = ${gap}, repeat = ${repeat};
  var total = repeat < 0 ? Infinity : (repeat + 1) * dur + repeat * gap, idle = 0;
  function tick(now) {
    var t = now - start, done = t >= total, p = done ? 1 : Math.min(1, (t % (dur + gap)) / dur);
    plane.style.transform = "translateX(" + Math.round(p * 230) + "px)";
    if (done && ++idle > 120) return;
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})();</script>`;

/**
 * A hand-written storyboard on a requestAnimationFrame ticker, as banners built without a library are: `tweens` are
 * [start, end] ms in which the plane moves on by one step; between them the frame holds while the ticker keeps ticking
 * (drawing nothing new); it falls asleep 120 idle frames after the last tween (as gsap.ticker's autoSleep does).
 */
const rafStoryboard = (tweens: Array<[number, number]>) => `<div style="${AD};background:#0b2545">${headline("Fly with us")}
<div id="plane" style="position:absolute;left:10px;top:120px;width:50px;height:30px;background:#eef4ed;border-radius:15px"></div></div>
<script>(function () {
  var plane = document.getElementById("plane"), tweens = ${JSON.stringify(tweens)}, step = 230 / tweens.length, start, idle = 0;
  function tick(now) {
    if (start === undefined) start = now;
    var t = now - start, x = 0, done = t >= tweens[tweens.length - 1][1];
    for (var i = 0; i < tweens.length; i++) x += step * Math.max(0, Math.min(1, (t - tweens[i][0]) / (tweens[i][1] - tweens[i][0])));
    plane.style.transform = "translateX(" + Math.round(x) + "px)";
    if (done && ++idle > 120) return;
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})();</script>`;

/** The box that slides across a banner, for the CSS animation rows. */
const SLIDER = `<div id="box" style="position:absolute;left:20px;top:110px;width:40px;height:40px;border-radius:6px;background:#ffb400"></div>`;

export const cases: Case[] = [
  // ---- animation duration
  {
    id: "storyboard-css",
    pattern: "HTML5 storyboard: headline slides in (0.8 s), 3 s hold, CTA slides in (0.8 s), then rests",
    html: () => `<style>
@keyframes in { from { transform: translateX(-300px) } to { transform: translateX(0) } }
@keyframes up { from { transform: translateY(80px) } to { transform: translateY(0) } }
#ad > div:first-child { animation: in .8s ease-out both } #ad > div:last-child { animation: up .8s linear 3.8s both }</style>
<div id="ad" style="${AD};background:#1d3557">${headline("Summer flights from $99")}${CTA}</div>`,
    expect: { size: [300, 250], animation: around(4600) },
  },
  {
    id: "slideshow-timeout",
    pattern: "three frames shown 3 s each by a setTimeout chain, then the end frame stays",
    html: () => `${SLIDES}<script>(function () {
  var s = document.querySelectorAll(".slide"), i = 0;
  function next() { s[i].style.display = "none"; s[++i].style.display = "block"; if (i < s.length - 1) setTimeout(next, 3000); }
  setTimeout(next, 3000);
})();</script>`,
    expect: { size: [300, 250], animation: around(6000) },
  },
  {
    // SVG SMIL is not in document.getAnimations(): only its own timeline says a delayed animation is still to come.
    id: "svg-smil-delayed",
    pattern: "SVG badge whose SMIL <animate> starts 2 s in (begin=\"2s\") and runs 1 s, then freezes",
    html: () => `<div style="${AD};background:#f1faee">${headline("Weekend deal", "#1d3557")}<svg width="300" height="250" style="position:absolute;left:0;top:0"><circle cx="240" cy="130" r="10" fill="#e63946"><animate attributeName="r" from="10" to="40" begin="2s" dur="1s" fill="freeze"/></circle></svg></div>`,
    expect: { size: [300, 250], animation: around(3000) },
  },
  {
    id: "svg-smil-spinner-loop",
    pattern: "SVG loader ring spinning forever (animateTransform, repeatCount=\"indefinite\")",
    html: () => `<div style="${AD};background:#1d3557">${headline("Loading deals")}<svg width="60" height="60" style="position:absolute;left:120px;top:120px"><g><circle cx="30" cy="30" r="24" stroke="#f1faee" stroke-width="6" fill="none" stroke-dasharray="100 60"/><animateTransform attributeName="transform" type="rotate" from="0 30 30" to="360 30 30" dur="1.2s" repeatCount="indefinite"/></g></svg></div>`,
    expect: { size: [300, 250], animation: "endless" },
  },
  {
    // A transition started by a class the creative adds after a timeout: the watch sees the timer, then the transition.
    id: "css-transition-after-timeout",
    pattern: "headline slides in with a 1 s CSS transition started by a class added 500 ms after load",
    html: () => `<style>#h{transform:translateX(-300px);transition:transform 1s ease-out} #h.in{transform:none}</style>
<div style="${AD};background:#fefae0"><div id="h" style="font:bold 26px Arial;padding:40px 20px;color:#283618">Fresh picks</div></div>
<script>addEventListener("load", function () { setTimeout(function () { document.getElementById("h").className = "in"; }, 500); });</script>`,
    expect: { size: [300, 250], animation: { min: 1200, max: 2600 } },
  },
  {
    id: "slideshow-interval-loop",
    pattern: "the same three frames rotating forever on setInterval",
    html: () => `${SLIDES}<script>(function () {
  var s = document.querySelectorAll(".slide"), i = 0;
  setInterval(function () { s[i].style.display = "none"; i = (i + 1) % s.length; s[i].style.display = "block"; }, 3000);
})();</script>`,
    expect: { size: [300, 250], animation: "endless" },
  },
  {
    id: "delayed-css-animation",
    pattern: "static end frame for 3 s, then a 1 s CSS animation (animation-delay: 3s)",
    html: () => `<style>@keyframes pop { from { transform: scale(.2) } to { transform: scale(1) } }
#badge { position:absolute; right:20px; top:90px; width:80px; height:80px; border-radius:40px; background:#e63946; color:#fff;
  font:bold 20px/80px Arial,sans-serif; text-align:center; animation: pop 1s linear 3s both }</style>
<div style="${AD};background:#f1faee">${headline("Weekend deal", "#1d3557")}<div id="badge">-30%</div></div>`,
    expect: { size: [300, 250], animation: around(4000) },
  },
  {
    // The storyboard pattern on a GSAP ticker: the ticker keeps running (and drawing nothing) through each 3 s hold.
    id: "gsap-storyboard-3s-holds",
    pattern: "GSAP-style rAF timeline: three 1 s tweens with 3 s holds between them (9 s in all), ticker alive throughout",
    html: () => gsapLike(2, 3000),
    expect: { size: [300, 250], animation: around(9000) },
  },
  {
    id: "gsap-finite-repeat",
    pattern: "GSAP-style rAF timeline: 1 s tween, repeat 2, repeatDelay 1 s (5 s in all)",
    html: () => gsapLike(2, 1000),
    expect: { size: [300, 250], animation: around(5000) },
  },
  {
    id: "gsap-infinite",
    pattern: "GSAP-style rAF timeline with repeat: -1",
    html: () => gsapLike(-1, 500),
    expect: { size: [300, 250], animation: "endless" },
  },
  {
    id: "createjs-ticker-after-stop",
    pattern: "Adobe Animate/CreateJS: 24 fps rAF ticker redraws the canvas forever; the 3 s timeline stops on its last frame",
    html: () => `<canvas id="c" width="300" height="250" style="display:block"></canvas>
<script>(function () {
  var ctx = document.getElementById("c").getContext("2d"), start = performance.now(), last = 72;
  function tick(now) {
    var frame = Math.min(last, Math.floor((now - start) * 24 / 1000));
    ctx.fillStyle = "#2b2d42"; ctx.fillRect(0, 0, 300, 250);
    ctx.fillStyle = "#ef233c"; ctx.fillRect(10 + frame * 3, 100, 50, 50);
    ctx.fillStyle = "#fff"; ctx.font = "bold 22px Arial"; ctx.fillText("Game on", 20, 50);
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})();</script>`,
    expect: { size: [300, 250], animation: around(3000) },
  },
  {
    id: "canvas-2s",
    pattern: "canvas drawn by requestAnimationFrame for 2 s, then the loop ends",
    html: () => `<canvas id="c" width="300" height="250" style="display:block"></canvas>
<script>(function () {
  var ctx = document.getElementById("c").getContext("2d"), start = performance.now();
  function draw(now) {
    var t = Math.min(1, (now - start) / 2000);
    ctx.fillStyle = "#003049"; ctx.fillRect(0, 0, 300, 250);
    ctx.fillStyle = "#fcbf49"; ctx.beginPath(); ctx.arc(30 + t * 240, 125, 25, 0, 7); ctx.fill();
    if (t < 1) requestAnimationFrame(draw);
  }
  requestAnimationFrame(draw);
})();</script>`,
    expect: { size: [300, 250], animation: around(2000) },
  },
  {
    // The last frame's own delay is invisible: the pixels stop when it appears, 2 s in, not after the 3 s of delays.
    id: "gif-once",
    pattern: "animated GIF banner, 3 frames x 1 s, no NETSCAPE loop block (plays once)",
    html: (f) => `<a href="${f.landing}" target="_blank"><img src="${f.https("cdn.example", "/anim-once.gif")}" width="300" height="250" style="display:block;border:0"></a>`,
    expect: { size: [300, 250], animation: around(2000) },
  },
  {
    // Slow storyboards now ship as animated WebP (smaller than GIF): each 1 s frame is a still longer than the settle
    // window, so only the file's own timing says more is coming.
    id: "webp-once",
    pattern: "animated WebP banner, 3 frames x 1 s, ANIM loop count 1 (plays once)",
    html: (f) => `<a href="${f.landing}" target="_blank"><img src="${f.https("cdn.example", "/anim-once.webp")}" width="300" height="250" style="display:block;border:0"></a>`,
    expect: { size: [300, 250], animation: around(2000) },
  },
  {
    id: "webp-loop",
    pattern: "animated WebP banner looping forever (ANIM loop count 0)",
    html: (f) => `<a href="${f.landing}" target="_blank"><img src="${f.https("cdn.example", "/anim-loop.webp")}" width="300" height="250" style="display:block;border:0"></a>`,
    expect: { size: [300, 250], animation: "endless" },
  },
  {
    id: "apng-once",
    pattern: "APNG banner served as image/png, 3 frames x 1 s, num_plays 1",
    html: (f) => `<a href="${f.landing}" target="_blank"><img src="${f.https("cdn.example", "/anim-once.png")}" width="300" height="250" style="display:block;border:0"></a>`,
    expect: { size: [300, 250], animation: around(2000) },
  },
  {
    // Red, green, blue, red, green, blue: the last change is the second blue, 5 s in.
    id: "gif-loop-count-1",
    pattern: "animated GIF with NETSCAPE2.0 loop count 1 (one repetition: plays twice)",
    html: (f) => `<a href="${f.landing}" target="_blank"><img src="${f.https("cdn.example", "/anim-twice.gif")}" width="300" height="250" style="display:block;border:0"></a>`,
    expect: { size: [300, 250], animation: around(5000) },
  },
  {
    id: "gif-loop",
    pattern: "animated GIF banner looping forever (NETSCAPE2.0 loop count 0)",
    html: (f) => `<a href="${f.landing}" target="_blank"><img src="${f.https("cdn.example", "/anim-loop.gif")}" width="300" height="250" style="display:block;border:0"></a>`,
    expect: { size: [300, 250], animation: "endless" },
  },
  {
    // Motion lasts from the first paint (the banner's background) to the video's last frame: 3 s of video plus the
    // moment it takes to load and start.
    id: "video-once",
    pattern: "video ad: <video autoplay muted playsinline>, 3 s, not looping",
    html: (f) => `<div style="${AD};background:#000"><video src="${f.https("cdn.example", "/ad.webm")}" autoplay muted playsinline width="300" height="250" style="display:block"></video></div>`,
    // The black box paints first and the video's first frame follows once it has arrived and decoded: that wait is
    // part of what the viewer sees move (first paint → last frame), and a loaded 2-core machine stretches it to ~1 s.
    expect: { size: [300, 250], video: true, animation: { min: 2600, max: 4200 } },
  },
  {
    id: "video-loop",
    pattern: "video ad with the loop attribute",
    html: (f) => `<div style="${AD};background:#000"><video src="${f.https("cdn.example", "/ad.webm")}" autoplay muted playsinline loop width="300" height="250" style="display:block"></video></div>`,
    expect: { size: [300, 250], video: true, animation: "endless" },
  },
  // ---- animation duration: whole timelines (issue 21)
  {
    // A storyboard hold longer than the old 4.5 s hold window under a live ticker: only its next tween says it was a hold.
    id: "raf-storyboard-hold-5s",
    pattern: "hand-written rAF storyboard: 1 s tween, 5 s hold, 1 s tween (7 s), ticker alive through the hold",
    html: () => rafStoryboard([[0, 1000], [6000, 7000]]),
    expect: { size: [300, 250], animation: around(7000) },
  },
  {
    id: "raf-storyboard-hold-10s",
    pattern: "hand-written rAF storyboard holding its frame 10 s before the last tween (1 s, 10 s hold, 1 s: 12 s)",
    html: () => rafStoryboard([[0, 1000], [11000, 12000]]),
    expect: { size: [300, 250], animation: around(12000) },
  },
  {
    // Endless by its CSS, finite by its script: the 3rd animationiteration event removes the animation (3 x 1.2 s).
    id: "css-infinite-stopped-3rd-iteration",
    pattern: "CTA box sliding on an `infinite` 1.2 s CSS animation that the creative's script stops on its 3rd animationiteration",
    html: () => `<style>@keyframes slide { from { transform: none } to { transform: translateX(200px) } } #box { animation: slide 1.2s linear infinite }</style>
<div style="${AD};background:#264653">${headline("Limited offer")}${SLIDER}</div>
<script>(function () { var n = 0, b = document.getElementById("box");
  b.addEventListener("animationiteration", function () { if (++n === 3) b.style.animation = "none"; }); })();</script>`,
    expect: { size: [300, 250], animation: around(3600) },
  },
  {
    id: "css-infinite-stopped-by-timer",
    pattern: "pulsing CTA (`infinite` 0.8 s CSS pulse) that a setTimeout stops 3 s after load",
    html: () => `<style>@keyframes pulse { 50% { transform: scale(1.25) } } #cta { animation: pulse .8s ease-in-out infinite }</style>
<div style="${AD};background:#6a4c93">${headline("Last chance")}<div id="cta" style="position:absolute;left:90px;bottom:24px;width:120px;height:32px;border-radius:4px;background:#ffb400"></div></div>
<script>addEventListener("load", function () { setTimeout(function () { document.getElementById("cta").style.animation = "none"; }, 3000); });</script>`,
    // Counted from the first paint; the timer starts at load, a few ms to a few hundred after it on a loaded machine.
    expect: { size: [300, 250], animation: { min: 2300, max: 3900 } },
  },
  {
    id: "css-iterations-3-stopped-early",
    pattern: "`animation-iteration-count: 3` slide (1 s each) that the script stops early, on its 2nd animationiteration",
    html: () => `<style>@keyframes slide { from { transform: none } to { transform: translateX(200px) } } #box { animation: slide 1s linear 3 }</style>
<div style="${AD};background:#2a9d8f">${headline("Three steps")}${SLIDER}</div>
<script>(function () { var n = 0, b = document.getElementById("box");
  b.onanimationiteration = function () { if (++n === 2) b.style.animation = "none"; }; })();</script>`,
    expect: { size: [300, 250], animation: around(2000) },
  },
  {
    // The image's own timeline starts once it has arrived and shows: the fetch after the first paint is part of the motion.
    id: "svg-img-smil",
    pattern: "animated SVG artwork as <img src=….svg>: a SMIL badge growing from 1 s to 3 s inside the image",
    html: (f) => `<div style="${AD};background:#1d3557"><img src="${f.https("cdn.example", "/img/badge-smil.svg")}" width="300" height="250" style="display:block"></div>`,
    expect: { size: [300, 250], animation: { min: 2600, max: 3900 } },
  },
  {
    id: "svg-background-smil-chain",
    pattern: "animated SVG as a CSS background: a bar slides in, the logo fades in 0.5 s after it (SMIL syncbase), 3 s in all",
    html: (f) => `<div style="${AD};background:#1d3557 url(${f.https("cdn.example", "/img/chain-smil.svg")}) no-repeat">${headline("New in store")}</div>`,
    expect: { size: [300, 250], animation: { min: 2600, max: 3900 } },
  },
  {
    id: "svg-img-css-animation",
    pattern: "SVG image whose CSS pulse (0.5 s delay, 3 x 1 s) runs inside the image",
    html: (f) => `<div style="${AD};background:#1d3557"><img src="${f.https("cdn.example", "/img/pulse-css.svg")}" width="300" height="250" style="display:block"></div>`,
    expect: { size: [300, 250], animation: { min: 3100, max: 4400 } },
  },
  {
    id: "svg-img-smil-loop",
    pattern: "SVG loader ring as <img src=….svg> spinning forever (SMIL repeatCount=\"indefinite\" inside the image)",
    html: (f) => `<div style="${AD};background:#1d3557"><img src="${f.https("cdn.example", "/img/spin-smil.svg")}" width="300" height="250" style="display:block"></div>`,
    expect: { size: [300, 250], animation: "endless" },
  },
  {
    id: "video-loop-paused-4s",
    pattern: "looping video ad (<video loop autoplay muted>) that the script pauses 4 s in",
    html: (f) => `<div style="${AD};background:#000"><video id="v" src="${f.https("cdn.example", "/ad.webm")}" autoplay muted playsinline loop width="300" height="250" style="display:block"></video></div>
<script>setTimeout(function () { document.getElementById("v").pause(); }, 4000);</script>`,
    expect: { size: [300, 250], video: true, animation: { min: 3300, max: 4700 } },
  },
  {
    id: "static-banner",
    pattern: "static banner: background, headline, logo (inlined), CTA; nothing moves",
    html: () => still("#264653", `<svg width="60" height="30" style="position:absolute;right:20px;top:90px"><rect width="60" height="30" fill="#e9c46a"/></svg>`),
    expect: { size: [300, 250], animation: { min: 0, max: 300 } },
  },
  {
    // Nothing is animated, but the logo pops in when its slow CDN answers, 1.5 s after the first paint: pixels
    // change then, and animation_duration says so ("until all pixels stop moving").
    id: "static-banner-slow-logo",
    pattern: "static banner whose logo arrives from a slow CDN (1.5 s)",
    html: (f) => still("#264653", `<img src="${f.https("cdn.example", "/img/solid.png?w=60&h=30&c=e9c46a&delay=1500")}" width="60" height="30" style="position:absolute;right:20px;top:90px">`),
    // The end moves with the CDN's answer: as late as the fixture server's own timer fired.
    expect: (f) => ({ size: [300, 250], animation: { min: 1300, max: 3000 + f.lateMs("delay=1500") } }),
  },

  // ---- has_border
  { id: "border-2px-solid", pattern: "white ad with a 2 px black border", html: () => `<div style="${AD};box-sizing:border-box;border:2px solid #000;background:#fff">${headline("Spring sale", "#111")}${CTA}</div>`, expect: { size: [300, 250], border: true } },
  { id: "border-3px-brand", pattern: "light ad framed by a 3 px solid brand-red border", html: () => `<div style="${AD};box-sizing:border-box;border:3px solid #c8102e;background:#fdf6ec">${headline("Pizza night", "#c8102e")}${CTA}</div>`, expect: { size: [300, 250], border: true } },
  { id: "border-8px-thick-frame", pattern: "white ad inside a thick 8 px navy brand frame", html: () => `<div style="${AD};box-sizing:border-box;border:8px solid #1d3557;background:#fff">${headline("Spring sale", "#111")}${CTA}</div>`, expect: { size: [300, 250], border: true } },
  {
    // Rounded corners: the frame's straight runs are a border; the corners show the page behind the curve.
    id: "border-rounded-2px", pattern: "white ad with a 2 px dark border and 8 px rounded corners",
    html: () => `<div style="${AD};box-sizing:border-box;border:2px solid #222;border-radius:8px;background:#fff">${headline("Spring sale", "#111")}${CTA}</div>`,
    expect: { size: [300, 250], border: true },
  },
  { id: "border-inset-shadow", pattern: "border drawn as box-shadow: inset 0 0 0 2px #000", html: () => `<div style="${AD};background:#fff;box-shadow:inset 0 0 0 2px #000">${headline("Spring sale", "#111")}${CTA}</div>`, expect: { size: [300, 250], border: true } },
  { id: "border-grey-1px-white-ad", pattern: "white ad with the usual 1 px light-grey (#ccc) keyline", html: () => `<div style="${AD};box-sizing:border-box;border:1px solid #ccc;background:#fff">${headline("Spring sale", "#111")}${CTA}</div>`, expect: { size: [300, 250], border: true } },
  { id: "border-outline-inset", pattern: "keyline drawn with outline: 1px solid #000; outline-offset: -1px", html: () => `<div style="${AD};background:#fff;outline:1px solid #000;outline-offset:-1px">${headline("Spring sale", "#111")}${CTA}</div>`, expect: { size: [300, 250], border: true } },
  {
    // The 2 px outline is painted outside the 296x246 box, so what shows is 300x250 with a black frame.
    id: "border-outline-outer",
    pattern: "outer border drawn with outline around a 296x246 box (margin 2px, outline 2px)",
    html: () => `<div style="position:relative;width:296px;height:246px;margin:2px;overflow:hidden;background:#fff;outline:2px solid #000;font-family:Arial,sans-serif">${headline("Spring sale", "#111")}${CTA}</div>`,
    expect: { size: [300, 250], border: true },
  },
  { id: "border-baked-in-png", pattern: "the border is part of the artwork: a PNG with a dark 2 px frame", html: (f) => `<img src="${f.https("cdn.example", "/img/framed.png?w=300&h=250&c=2a9d8f")}" width="300" height="250" style="display:block">`, expect: { size: [300, 250], border: true } },
  { id: "no-border-flat-fill", pattern: "flat colour fill to the edges", html: () => still("#e63946"), expect: { size: [300, 250], border: false } },
  { id: "no-border-gradient", pattern: "left-to-right gradient background to the edges", html: () => still("linear-gradient(to right,#0b3d91,#4fc3f7)"), expect: { size: [300, 250], border: false } },
  { id: "no-border-photo", pattern: "photo artwork running to the edges", html: (f) => `<img src="${f.https("cdn.example", "/img/photo.png?w=300&h=250")}" width="300" height="250" style="display:block">`, expect: { size: [300, 250], border: false } },

  // ---- dimensions
  {
    id: "pixel-inline-after-ad",
    pattern: "1x1 tracking pixel as an inline <img> right after the 300x250 ad",
    html: (f) => `${still("#457b9d")}<img src="${f.https("track.example", "/px.gif?ev=imp")}" width="1" height="1" alt="">`,
    expect: { size: [300, 250] },
  },
  {
    id: "pixel-display-block",
    pattern: "1x1 tracking pixel with display:block below the ad",
    html: (f) => `${still("#457b9d")}<img src="${f.https("track.example", "/px.gif?ev=imp")}" width="1" height="1" style="display:block" alt="">`,
    expect: { size: [300, 250] },
  },
  {
    id: "hidden-and-offscreen",
    pattern: "unused sizes left in the tag: display:none, visibility:hidden and left:-9999px elements",
    html: () => `${still("#6d597a")}<div style="display:none;width:728px;height:90px;background:#f00"></div>
<div style="visibility:hidden;width:728px;height:90px;background:#f00"></div>
<div style="position:absolute;left:-9999px;top:0;width:160px;height:600px;background:#f00"></div>`,
    expect: { size: [300, 250] },
  },
  {
    id: "expanding-overflow",
    pattern: "expandable: 300x250 that widens to 600x250 on hover (overflow:hidden), collapsed at load",
    html: () => `<style>#exp { width:300px; transition: width .3s } #exp:hover { width:600px }</style>
<div id="exp" style="${AD.replace("width:300px;", "")};background:#ffb703"><div style="position:absolute;left:300px;top:0;width:300px;height:250px;background:#023047"></div>${headline("Hover to explore", "#023047")}</div>`,
    expect: { size: [300, 250] },
  },
  {
    id: "expanding-clip-path",
    pattern: "expandable: 600x250 panel clipped to 300x250 with clip-path until hover",
    html: () => `<style>#exp { clip-path: inset(0 300px 0 0); transition: clip-path .3s } #exp:hover { clip-path: inset(0) }</style>
<div id="exp" style="position:absolute;left:0;top:0;width:600px;height:250px;font-family:Arial,sans-serif;background:linear-gradient(to right,#ffb703 50%,#023047 50%)">${headline("Hover to explore", "#023047")}</div>`,
    expect: { size: [300, 250] },
  },
  {
    id: "responsive-in-slot",
    pattern: "responsive creative (width:100%) inside the publisher's 300x250 slot div",
    html: (f) => `<div class="ad-slot" style="width:300px;height:250px"><div style="width:100%;height:100%;position:relative;background:#8ecae6;font-family:Arial,sans-serif">
<img src="${f.https("cdn.example", "/img/solid.png?w=600&h=200&c=219ebc")}" style="display:block;width:100%;height:auto" alt="">${CTA}</div></div>`,
    expect: { size: [300, 250] },
  },
  {
    id: "adchoices-icon",
    pattern: "AdChoices 15x15 icon absolutely positioned in the ad's top-right corner",
    html: (f) => still("#2a9d8f", `<a href="https://optout.example/" target="_blank"><img src="${f.https("cdn.example", "/img/solid.png?w=15&h=15&c=00aecd")}" width="15" height="15" style="position:absolute;top:0;right:0" alt="AdChoices"></a>`),
    expect: { size: [300, 250] },
  },
  {
    // The bottom strip arrives 1.5 s after load: it belongs to the ad's size, and its appearance is a change. It
    // shows once fetched, so a loaded machine may add a few hundred ms; it can never show before 1.5 s.
    id: "late-image-timeout",
    pattern: "a 300x50 offer strip inserted by setTimeout 1.5 s after load below a 300x200 panel",
    html: (f) => `<div id="ad" style="width:300px;font-family:Arial,sans-serif"><div style="height:200px;background:#3d405b;color:#fff;font:bold 24px Arial;padding:30px 20px;box-sizing:border-box">Late offer</div></div>
<script>addEventListener("load", function () { setTimeout(function () {
  var i = new Image(300, 50); i.style.display = "block"; i.src = "${f.https("cdn.example", "/img/solid.png?w=300&h=50&c=e07a5f")}";
  document.getElementById("ad").appendChild(i);
}, 1500); });</script>`,
    // Counted from the first paint, which comes before `load`: on a busy machine both gaps stretch.
    expect: { size: [300, 250], animation: { min: 1300, max: 3500 } },
  },
  {
    // In view, a lazy image loads at once; this CDN answers after 1 s, so the artwork appears about 1 s in.
    id: "lazy-image",
    pattern: "loading=\"lazy\" hero image (slow CDN, 1 s) over the banner's background",
    html: (f) => `<div style="${AD};background:#f4f1de"><img loading="lazy" src="${f.https("cdn.example", "/img/solid.png?w=300&h=150&c=81b29a&delay=1000")}" width="300" height="150" style="display:block">${CTA}</div>`,
    expect: (f) => ({ size: [300, 250], animation: { min: 900, max: 3000 + f.lateMs("delay=1000") } }),
  },
  {
    id: "friendly-iframe-docwrite",
    pattern: "ad server writes the creative into a same-origin (friendly) iframe with document.write",
    html: () => `<div id="slot"></div><script>(function () {
  var f = document.createElement("iframe");
  f.width = "300"; f.height = "250"; f.frameBorder = "0"; f.scrolling = "no"; f.style.cssText = "border:0;display:block";
  document.getElementById("slot").appendChild(f);
  var d = f.contentWindow.document;
  d.open();
  d.write('<!doctype html><html><body style="margin:0">' + ${JSON.stringify(still("#bc4749"))} + '</body></html>');
  d.close();
})();</script>`,
    expect: { size: [300, 250], docWrite: true, iframes: 1 },
  },
  {
    id: "xo-iframe-300x250",
    pattern: "creative served in a cross-origin 300x250 iframe (frame.example)",
    html: (f) => `<iframe src="${f.page("frame.example", `<!doctype html><body style="margin:0">${still("#386641")}</body>`)}" width="300" height="250" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>`,
    expect: { size: [300, 250], iframes: 1 },
  },
  {
    // The frame's document has no background, so its lower 350 px are transparent: what shows is 300x250.
    id: "xo-iframe-300x600-paints-top",
    pattern: "300x600 cross-origin iframe whose document paints only a 300x250 ad at the top",
    html: (f) => `<iframe src="${f.page("frame.example", `<!doctype html><body style="margin:0">${still("#6a994e")}</body>`)}" width="300" height="600" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>`,
    expect: { size: [300, 250], iframes: 1 },
  },

  // ---- ssl
  {
    id: "ssl-http-pixel",
    pattern: "impression pixel written as http:// (Chromium auto-upgrades it to https)",
    html: (f) => `${still("#1d3557")}<img src="${f.http("track.example", "/px.gif?ev=imp")}" width="1" height="1" style="position:absolute;left:0;top:0">`,
    expect: (f) => ({ size: [300, 250], ssl: { compliant: false, insecure: [f.http("track.example", "/px.gif?ev=imp")] } }),
  },
  {
    id: "ssl-http-script",
    pattern: "library loaded with an http:// script src (blocked as mixed content)",
    html: (f) => `${still("#1d3557")}<script src="${f.http("cdn.example", "/js/lib.js")}"></script>`,
    expect: (f) => ({ size: [300, 250], ssl: { compliant: false, insecure: [f.http("cdn.example", "/js/lib.js")] } }),
  },
  {
    // The usual impression tracker: fired from script, never in the DOM; Chromium upgrades the image to https.
    id: "ssl-http-pixel-from-js",
    pattern: "impression pixel fired from script as new Image().src = \"http://…\" (not in the DOM)",
    html: (f) => `${still("#1d3557")}<script>new Image().src = ${JSON.stringify(f.http("track.example", "/px.gif?ev=js"))};</script>`,
    expect: (f) => ({ size: [300, 250], ssl: { compliant: false, insecure: [f.http("track.example", "/px.gif?ev=js")] } }),
  },
  {
    // A viewability beacon over http: blocked as mixed content, so it never reaches the network at all.
    id: "ssl-http-beacon",
    pattern: "viewability beacon sent with navigator.sendBeacon(\"http://…\") on load (blocked as mixed content)",
    html: (f) => `${still("#1d3557")}<script>addEventListener("load", function () { navigator.sendBeacon(${JSON.stringify(f.http("track.example", "/px.gif?ev=view"))}, "v=1"); });</script>`,
    expect: (f) => ({ size: [300, 250], ssl: { compliant: false, insecure: [f.http("track.example", "/px.gif?ev=view")] } }),
  },
  {
    id: "ssl-http-pixel-in-xo-iframe",
    pattern: "https cross-origin iframe creative whose own impression pixel is http://",
    html: (f) => `<iframe src="${f.page("frame.example", `<!doctype html><body style="margin:0">${still("#264653")}<img src="${f.http("track.example", "/px.gif?ev=frame")}" width="1" height="1" style="position:absolute;left:0;top:0"></body>`)}" width="300" height="250" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>`,
    expect: (f) => ({ size: [300, 250], ssl: { compliant: false, insecure: [f.http("track.example", "/px.gif?ev=frame")] } }),
  },
  {
    id: "ssl-all-https",
    pattern: "script, artwork and pixel all over https",
    html: (f) => `<script src="${f.https("cdn.example", "/js/lib.js")}"></script>${still("#1d3557", `<img src="${f.https("cdn.example", "/img/solid.png?w=60&h=30&c=e9c46a")}" style="position:absolute;right:20px;top:90px">`)}
<img src="${f.https("track.example", "/px.gif?ev=imp")}" width="1" height="1" style="position:absolute;left:0;top:0">`,
    expect: { size: [300, 250], ssl: { compliant: true, insecure: [] } },
  },

  // ---- cookies
  {
    id: "cookie-3p-pixel",
    pattern: "third-party impression pixel over https setting tp=1; SameSite=None; Secure; HttpOnly",
    html: (f) => `${still("#264653")}<img src="${f.https("track.example", "/cookie.gif")}" width="1" height="1" style="position:absolute;left:0;top:0">`,
    expect: { size: [300, 250], cookie: { name: "tp", httpOnly: true, secure: true, sameSite: "None" } },
  },
  {
    // A cookie sync: the pixel on one ad server redirects to another, whose answer at the end of the chain sets its cookie.
    id: "cookie-sync-redirect",
    pattern: "impression pixel 302-redirected by track.example to an ad server that sets tp=1 (a cookie sync)",
    html: (f) => `${still("#264653")}<img src="${f.https("track.example", `/click?hops=1&to=${encodeURIComponent(f.https("ads.example", "/cookie.gif"))}`)}" width="1" height="1" style="position:absolute;left:0;top:0">`,
    expect: { size: [300, 250], cookie: { name: "tp", httpOnly: true, secure: true, sameSite: "None" } },
  },
  {
    id: "cookie-refused-not-listed",
    pattern: "third-party pixel whose SameSite=None cookie lacks Secure (Chromium refuses it) beside a valid one",
    html: (f) => `${still("#264653")}<img src="${f.https("track.example", "/cookie.gif")}" width="1" height="1" style="position:absolute;left:0;top:0"><img src="${f.https("ads.example", "/bad-cookie.gif")}" width="1" height="1" style="position:absolute;left:0;top:0">`,
    expect: { size: [300, 250], cookie: { name: "tp", secure: true }, noCookie: "refused" },
  },
  {
    id: "cookie-js-in-xo-iframe",
    pattern: "cross-origin iframe creative whose vendor script (cdn.example) sets a cookie from JS",
    html: (f) => `<iframe src="${f.page("frame.example", `<!doctype html><body style="margin:0">${still("#264653")}<script src="${f.https("cdn.example", "/js/cookie.js")}"></script></body>`)}" width="300" height="250" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>`,
    expect: { size: [300, 250], cookie: { name: "fp_id", httpOnly: false, secure: true, sameSite: "None" } },
  },

  // ---- landing page
  {
    id: "landing-anchor-blank",
    pattern: "whole ad wrapped in <a href target=_blank>",
    landing: true,
    html: (f) => `<a href="${f.landing}" target="_blank" style="display:block;width:300px">${still("#e76f51")}</a>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    id: "landing-clicktag-window-open",
    pattern: "HTML5 clickTag: var clickTag = \"…\"; onclick=\"window.open(clickTag)\"",
    landing: true,
    html: (f) => `<script>var clickTag = "${f.landing}";</script>
<div onclick="window.open(clickTag)" style="cursor:pointer">${still("#e76f51")}</div>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // Older Flash-era conversions and some ad servers still wrap the ad in a javascript: link to the clickTag.
    id: "landing-javascript-href",
    pattern: "<a href=\"javascript:window.open(window.clickTag)\"> around the artwork",
    landing: true,
    html: (f) => `<script>var clickTag = "${f.landing}";</script>
<a href="javascript:window.open(window.clickTag)" style="display:block">${still("#2a9d8f")}</a>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // An image map: the whole banner is one <area>, common in e-mail-style and hand-coded banners.
    id: "landing-image-map",
    pattern: "banner image with a usemap whose single <area> covers it (target=_blank)",
    landing: true,
    html: (f) => `<img src="${f.https("cdn.example", "/img/solid.png?w=300&h=250&c=264653")}" width="300" height="250" usemap="#m" style="display:block;border:0">
<map name="m"><area shape="rect" coords="0,0,300,250" href="${f.landing}" target="_blank" alt="Shop now"></map>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    id: "landing-click-tracker-2-redirects",
    pattern: "click goes through two 302 click trackers before the landing page",
    landing: true,
    html: (f) => `<a href="${f.https("click.example", `/click?hops=2&to=${encodeURIComponent(f.landing)}`)}" target="_blank" style="display:block;width:300px">${still("#e76f51")}</a>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    id: "landing-same-tab-top-location",
    pattern: "click handler navigating the page itself: top.location.href = clickTag",
    landing: true,
    html: (f) => `<script>var clickTag = "${f.landing}";</script>
<div onclick="top.location.href = clickTag" style="cursor:pointer">${still("#e76f51")}</div>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "same_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // Nobody replaced the macro, so the href is relative: a browser resolves it against the page the ad is on and
    // opens that URL, which is no landing page (our host page's origin answers 404 / does not resolve).
    id: "landing-unexpanded-macro",
    pattern: "click macro left unexpanded: href=\"%%CLICK_URL_UNESC%%https://landing…\"",
    landing: true,
    html: (f) => `<a href="%%CLICK_URL_UNESC%%${f.landing}" target="_blank" style="display:block;width:300px">${still("#e76f51")}</a>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: new URL(`%%CLICK_URL_UNESC%%${f.landing}`, CREATIVE_PAGE).href, working: false } }),
  },
  {
    id: "landing-form-submit",
    pattern: "the whole ad is a form button submitting (GET) to the landing page in a new tab",
    landing: true,
    html: (f) => `<form action="${f.landing}" method="get" target="_blank" style="margin:0"><button type="submit" style="display:block;padding:0;border:0;margin:0;cursor:pointer">${still("#2a9d8f")}</button></form>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: `${f.landing}?`, title: "Landing", working: true } }),
  },
  {
    id: "landing-friendly-iframe-top-location",
    pattern: "ad-server friendly iframe whose creative sends the top page to the clickTag (top.location)",
    landing: true,
    html: (f) => {
      const creative = `<body style="margin:0"><div onclick="top.location.href = '${f.landing}'" style="cursor:pointer">${still("#e76f51")}</div></body>`;
      return `<iframe id="fif" width="300" height="250" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>
<script>var d = document.getElementById("fif").contentDocument; d.open(); d.write(${JSON.stringify(creative)}); d.close();</script>`;
    },
    expect: (f) => ({ size: [300, 250], landing: { tab: "same_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // The in-app pattern: the SDK answers "mraid.js" (our container does), the ad stays hidden until `ready` and
    // clicks through with mraid.open, which the SDK turns into its in-app browser (a new window here).
    id: "mraid-banner-open",
    pattern: "in-app MRAID 320x50: <script src=\"mraid.js\">, shown on ready, mraid.open(clickTag) on tap",
    landing: true,
    html: (f) => `<script src="mraid.js"></script>
<div id="ad" onclick="mraid.open('${f.landing}')" style="display:none;width:320px;height:50px;background:#1d3557;color:#fff;font:bold 18px/50px Arial,sans-serif;text-align:center">Tap to shop</div>
<script>(function () {
  function show() { document.getElementById("ad").style.display = "block"; }
  if (mraid.getState() === "loading") mraid.addEventListener("ready", show); else show();
})();</script>`,
    expect: (f) => ({ size: [320, 50], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // Most tags render in the ad server's cross-origin iframe; the exit is a plain link inside it.
    id: "landing-xo-iframe-anchor",
    pattern: "creative in a cross-origin iframe (frame.example) whose whole face is <a target=_blank>",
    landing: true,
    html: (f) => `<iframe src="${f.page("frame.example", `<!doctype html><body style="margin:0"><a href="${f.landing}" target="_blank" style="display:block">${still("#386641")}</a></body>`)}" width="300" height="250" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>`,
    expect: (f) => ({ size: [300, 250], iframes: 1, landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    id: "landing-listener-exit-after-tracker",
    pattern: "exit wired with addEventListener: the handler fires a click tracker, then opens the clickTag 300 ms later",
    landing: true,
    html: (f) => `<div id="exit" style="cursor:pointer">${still("#bc6c25")}</div>
<script>document.getElementById("exit").addEventListener("click", function () {
  new Image().src = "${f.https("track.example", "/px.gif?ev=click")}";
  setTimeout(function () { window.open("${f.landing}", "_blank"); }, 300);
});</script>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // Animation libraries tick on requestAnimationFrame (GSAP's delayedCall, an exit tween's onComplete): the exit runs
    // a frame after the click, with no timer pending and no request in flight in between.
    id: "landing-exit-next-frame",
    pattern: "exit handler that opens the clickTag on the next animation frame (an animation library's delayed call)",
    landing: true,
    html: (f) => `<div id="exit" style="cursor:pointer">${still("#588157")}</div>
<script>document.getElementById("exit").addEventListener("click", function () {
  requestAnimationFrame(function () { window.open("${f.landing}", "_blank"); });
});</script>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // An exit button that is pressed first: the click starts a 400 ms tween on requestAnimationFrame (an animation
    // library's ticker) and the clickTag opens when it ends (GSAP's onComplete), with no timer pending meanwhile.
    id: "landing-exit-after-tween",
    pattern: "exit handler that runs a 400 ms requestAnimationFrame tween and opens the clickTag when it ends",
    landing: true,
    html: (f) => `<div id="exit" style="position:relative;width:300px;height:250px;cursor:pointer;overflow:hidden">${still("#3a5a40")}
<div id="btn" style="position:absolute;left:20px;top:200px;width:80px;height:30px;background:#dad7cd"></div></div>
<script>document.getElementById("exit").addEventListener("click", function () {
  var btn = document.getElementById("btn"), t0 = performance.now();
  requestAnimationFrame(function step(t) {
    var k = Math.min(1, (t - t0) / 400);
    btn.style.transform = "translateX(" + Math.round(180 * k) + "px)";
    if (k < 1) requestAnimationFrame(step);
    else window.open("${f.landing}", "_blank");
  });
});</script>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // Adobe Animate / CreateJS banners draw on a canvas and listen on it (or on the stage): nothing in the DOM is a
    // link, only the listener says the ad is clickable.
    id: "landing-canvas-listener",
    pattern: "Animate-style canvas banner: canvas.addEventListener('click', () => window.open(clickTag))",
    landing: true,
    html: (f) => `<canvas id="c" width="300" height="250" style="display:block;cursor:pointer"></canvas>
<script>var clickTag = "${f.landing}"; var c = document.getElementById("c"), g = c.getContext("2d");
g.fillStyle = "#6a4c93"; g.fillRect(0, 0, 300, 250); g.fillStyle = "#fff"; g.font = "bold 28px Arial"; g.fillText("Spring sale", 20, 60);
c.addEventListener("click", function () { window.open(clickTag); });</script>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    id: "landing-anchor-same-tab",
    pattern: "plain <a href> with no target around the ad: the page itself goes to the landing page",
    landing: true,
    html: (f) => `<a href="${f.landing}" style="display:block;width:300px">${still("#e76f51")}</a>`,
    expect: (f) => ({ size: [300, 250], landing: { tab: "same_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    // Mobile rich media often exits on touchend alone: a phone's tap fires it, a mouse click never would.
    id: "landing-mobile-touchend",
    pattern: "mobile 320x50 whose exit listens for touchend only, scanned as a phone",
    landing: true,
    device: Device.MOBILE,
    html: (f) => `<div id="exit" style="width:320px;height:50px;background:#1d3557;color:#fff;font:bold 18px/50px Arial,sans-serif;text-align:center">Tap to shop</div>
<script>document.getElementById("exit").addEventListener("touchend", function () { window.open("${f.landing}"); });</script>`,
    expect: (f) => ({ size: [320, 50], landing: { tab: "new_tab", url: f.landing, title: "Landing", working: true } }),
  },
  {
    id: "landing-none",
    pattern: "creative without any click-through",
    landing: true,
    html: () => still("#e76f51"),
    expect: { size: [300, 250], landing: { tab: "none" } },
  },
];

const show = (v: unknown): string => (typeof v === "string" ? JSON.stringify(v) : Array.isArray(v) ? `[${v.map(show).join(", ")}]` : String(v));

/** Every way the report differs from the truth, one line each ("field: expected …, got …"); empty when it matches. */
export function differences(r: TagReport, e: Expect): string[] {
  const out: string[] = [];
  const check = (field: string, want: unknown, got: unknown) => {
    if (want !== got) out.push(`${field}: expected ${show(want)}, got ${show(got)}`);
  };
  check("dimensions", `${e.size[0]}x${e.size[1]}`, `${r.dimensions?.width ?? 0}x${r.dimensions?.height ?? 0}`);
  check("creativeRendered", e.rendered ?? true, r.creativeRendered);
  if (e.animation !== undefined) {
    const got = Number(r.animationDurationMs);
    if (e.animation === "endless") check("animationDurationMs", -1, got);
    else if (got < e.animation.min || got > e.animation.max) out.push(`animationDurationMs: expected ${e.animation.min}..${e.animation.max}, got ${got}`);
  }
  if (e.border !== undefined) check("hasBorder", e.border, r.hasBorder);
  if (e.video !== undefined) check("hasVideo", e.video, r.hasVideo);
  if (e.docWrite !== undefined) check("usesDocumentWrite", e.docWrite, r.usesDocumentWrite);
  if (e.iframes !== undefined) check("iframes", e.iframes, r.iframes);
  if (e.ssl) {
    check("ssl.compliant", e.ssl.compliant, r.ssl?.compliant);
    if (e.ssl.insecure) {
      const got = [...new Set(r.ssl?.insecureUrls ?? [])].sort();
      const want = [...new Set(e.ssl.insecure)].sort();
      check("ssl.insecureUrls", show(want), show(got));
    }
  }
  if (e.noCookie && r.cookies.some((x) => x.name === e.noCookie)) out.push(`cookies: ${show(e.noCookie)} was refused by the browser but is listed`);
  if (e.cookie) {
    const c = r.cookies.find((x) => x.name === e.cookie!.name);
    if (!c) out.push(`cookies: expected a cookie named ${show(e.cookie.name)}, got [${r.cookies.map((x) => x.name).join(", ")}]`);
    else {
      if (e.cookie.httpOnly !== undefined) check(`cookie ${c.name}.httpOnly`, e.cookie.httpOnly, c.httpOnly);
      if (e.cookie.secure !== undefined) check(`cookie ${c.name}.secure`, e.cookie.secure, c.secure);
      if (e.cookie.sameSite !== undefined) check(`cookie ${c.name}.sameSite`, e.cookie.sameSite, c.sameSite);
    }
  }
  if (e.landing) {
    const l = r.landingPage;
    if (!l) out.push("landingPage: expected an object, got none");
    else {
      check("landingPage.tab", e.landing.tab, l.tab);
      if (e.landing.url !== undefined) check("landingPage.url", e.landing.url, l.url);
      if (e.landing.title !== undefined) check("landingPage.title", e.landing.title, l.title);
      if (e.landing.working !== undefined) check("landingPage.working", e.landing.working, l.working);
      if (!l.screenshot) out.push("landingPage.screenshot: expected an object, got none");
    }
  }
  return out;
}

export const expectationOf = (c: Case, f: Fixtures): Expect => (typeof c.expect === "function" ? c.expect(f) : c.expect);

/**
 * An endless case reads -1 at any render time-out, so 10 s of render prove it as 20 s do: its job gets a deadline,
 * as a customer's would, which ends the render early (scanner.ts: the render ends 2 steps before the deadline, to
 * measure and reply; 7 s here). Seven endless rows spent 7 × 20 s of the corpus' one-at-a-time run waiting for a
 * verdict they had long before.
 */
const ENDLESS_RENDER_MS = 10_000;
export function truthJob(c: Case, f: Fixtures) {
  const job = caseJob(c, f);
  if (expectationOf(c, f).animation === "endless") {
    const room = 2 * TRUTH_TIMEOUTS.stepMs + (c.landing ? TRUTH_TIMEOUTS.landingMs : 0);
    job.deadlineUnixMs = BigInt(Date.now() + ENDLESS_RENDER_MS + room);
  }
  return job;
}
