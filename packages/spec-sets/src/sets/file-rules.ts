import type { FixedRule, LookupRule, Rule } from "./types.ts";

// The rules of the raw-file scans (scanVideo, scanImage, scanAudio), shared by spec set 0 (US figures: ATSC A/85) and
// spec set 2 (EBU R128 markets): the sets differ only in the loudness standard. Every figure cites its source beside
// it; where no published figure exists the rule is a product default with its reason. A test the default install
// cannot evaluate is not listed (every one here is measured by the media prober as shipped).

const GUIDE = "spec/iab-guidelines.md";

export const FILE_SOURCES = {
  lengths:
    `${GUIDE}, row "Video renditions": "common lengths 6/15/30 s", IAB Digital Video Ad Format Guidelines 2016 via a ` +
    "secondary summary (adopsbasics.blogspot.com/2017/08); primary PDF not retrieved",
  renditions:
    `${GUIDE}, row "Video renditions": renditions up to 1920x1080, video 500–700 / 700–1500 / 1500–2500 kbps, IAB Digital ` +
    "Video Ad Format Guidelines 2016 via a secondary summary (adopsbasics.blogspot.com/2017/08)",
  atscLoudness:
    `${GUIDE}, row "Loudness": -24 LKFS, ATSC A/85 (the US broadcast recommended practice the CALM Act makes binding), ` +
    "tolerance ±2 dB (help.advalidation.com loudness reference levels)",
  atscTruePeak:
    `${GUIDE}, row "Loudness" (ATSC A/85); the true-peak ceiling of -2 dBTP is ATSC A/85's own recommendation for ` +
    "delivered content (not in the row's summary)",
  ebuLoudness:
    `${GUIDE}, row "Loudness": -23 LUFS ±0.5, EBU R128 (2020) §2: programme loudness -23.0 LUFS, deviation ±0.5 LU ` +
    "(±1.0 LU only where exact normalisation is not practicable, e.g. live; a file-based spot is not live)",
  ebuTruePeak:
    `${GUIDE}, row "Loudness" (EBU R128); the maximum permitted true peak of -1 dBTP is EBU R128 (2020) §2's own figure ` +
    "(not in the row's summary)",
  mp4: `${GUIDE}, row "MP4": MOOV atom at start ("web optimized"), GumGum CTV spec (gumgum.jira.com/wiki/spaces/GCDC/pages/4503666689)`,
  displayWeight:
    `${GUIDE}, row "Initial / subload (KB)": IAB New Ad Portfolio 2017, "Fixed Size Ad Specifications" ` +
    "(online.documentine.com/specifications/1/fixed-size-ad-specifications-iab.html; pdf4pro.com)",
  animation:
    `${GUIDE}, row "Animation": 15 s maximum, no looping beyond 15 s, 2016 IAB draft (slideshare summary), restated by ` +
    "publisher specs (adspecs.carsguidemedia.com.au); the final 2017 text was not retrieved",
  loops:
    `${GUIDE}, row "Animation" ("no looping beyond 15 s"); the 3-play limit is the publishers' restatement of the IAB ` +
    'display guidelines: "3 loop limit, 15 sec max" (pgatour.com/advertise/2017-products/StandardDisplay.html), ' +
    '"Looping: 3 loops, 15 seconds max" (admetricsmedia.com/advertisers/advertising-specifications)',
  noFigure: `${GUIDE}: no published figure; product default`,
} as const;

/** The loudness standard a set judges audio by. */
export interface LoudnessStandard {
  readonly name: string;
  readonly window: readonly [lo: number, hi: number];
  readonly windowText: string;
  readonly windowSource: string;
  readonly truePeakMax: number;
  readonly truePeakText: string;
  readonly truePeakSource: string;
}

export const ATSC_A85: LoudnessStandard = {
  name: "ATSC A/85",
  window: [-26, -22],
  windowText: "between -26 and -22 LUFS (ATSC A/85: -24 LKFS ±2)",
  windowSource: FILE_SOURCES.atscLoudness,
  truePeakMax: -2,
  truePeakText: "at most -2 dBTP (ATSC A/85)",
  truePeakSource: FILE_SOURCES.atscTruePeak,
};

export const EBU_R128: LoudnessStandard = {
  name: "EBU R128",
  window: [-23.5, -22.5],
  windowText: "between -23.5 and -22.5 LUFS (EBU R128: -23 LUFS ±0.5)",
  windowSource: FILE_SOURCES.ebuLoudness,
  truePeakMax: -1,
  truePeakText: "at most -1 dBTP (EBU R128)",
  truePeakSource: FILE_SOURCES.ebuTruePeak,
};

/** Fades are normal; a slate or dead air of more than half a second is not (product default, see the reasons). */
const ENDS_MAX_MS = 500;

type Scope = "video_file" | "audio_file";

function loudnessRules(scope: Scope, std: LoudnessStandard): FixedRule[] {
  return [
    {
      kind: "fixed", test: "loudness", scope, basis: "industry", operator: "><", expected: std.window, expected_text: std.windowText,
      source: std.windowSource,
      reason: "IAB publishes no loudness figure; the set's market standard applies (spec set 0: US, spec set 2: EBU R128 markets).",
    },
    {
      kind: "fixed", test: "true_peak", scope, basis: "industry", operator: "<=", expected: std.truePeakMax, expected_text: std.truePeakText,
      source: std.truePeakSource,
    },
  ];
}

function endsRules(scope: Scope): FixedRule[] {
  const why = (end: string) =>
    `No published figure. ${end} silence is dead air the buyer pays for and players count in the spot's length; ${ENDS_MAX_MS} ms ` +
    "leaves room for a natural breath or fade while a 1 s gap fails.";
  return [
    {
      kind: "fixed", test: "leading_silence", scope, basis: "product_default", operator: "<=", expected: ENDS_MAX_MS,
      expected_text: `at most ${ENDS_MAX_MS} ms`, source: FILE_SOURCES.noFigure, reason: why("Leading"),
    },
    {
      kind: "fixed", test: "trailing_silence", scope, basis: "product_default", operator: "<=", expected: ENDS_MAX_MS,
      expected_text: `at most ${ENDS_MAX_MS} ms`, source: FILE_SOURCES.noFigure, reason: why("Trailing"),
    },
  ];
}

export function videoFileRules(std: LoudnessStandard): Rule[] {
  return [
    {
      kind: "fixed", test: "duration", scope: "video_file", basis: "iab", operator: "==", expected: 1,
      expected_text: "6, 15 or 30 s (within 0.5 s)", source: FILE_SOURCES.lengths,
      reason: "The lengths are IAB's; the 0.5 s tolerance (encoder padding: a 30 s spot at 29.97 fps measures 30.03 s) is the product's.",
    },
    ...loudnessRules("video_file", std),
    {
      kind: "fixed", test: "sample_rate", scope: "video_file", basis: "product_default", operator: "==", expected: 48_000,
      expected_text: "48 kHz", source: FILE_SOURCES.noFigure,
      reason: "Broadcast and CTV chains (ATSC, EBU, SSAI transcoders) run at 48 kHz; a 44.1 kHz track is resampled on the way, a lower rate sounds degraded.",
    },
    {
      kind: "fixed", test: "frame_rate", scope: "video_file", basis: "product_default", operator: "><", expected: [23.976, 30],
      expected_text: "between 23.976 and 30 fps", source: FILE_SOURCES.noFigure,
      reason: "The film, PAL and NTSC rates (23.976, 24, 25, 29.97, 30 fps) play on every web and CTV player without conversion; 50/60 fps is converted (judder) by ad stitchers that normalise to the programme's rate, below 23.976 fps motion stutters.",
    },
    {
      kind: "fixed", test: "constant_frame_rate", scope: "video_file", basis: "product_default", operator: "==", expected: 1,
      expected_text: "constant frame rate", source: FILE_SOURCES.noFigure,
      reason: "Variable frame rate (phone and screen recordings) drifts audio out of sync in transcoders and stitchers that assume a constant rate.",
    },
    {
      kind: "fixed", test: "progressive", scope: "video_file", basis: "product_default", operator: "==", expected: 1,
      expected_text: "progressive frames", source: FILE_SOURCES.noFigure,
      reason: "Every screen an ad plays on (phone, PC, CTV panel) is progressive: interlaced frames show combing unless the player deinterlaces, which web players do not.",
    },
    {
      kind: "fixed", test: "ctv_resolution", scope: "video_file", basis: "iab", operator: ">=", expected: 1080,
      expected_text: "at least 1080 lines (1920x1080)", source: FILE_SOURCES.renditions,
      reason: "1920x1080 is the largest rendition of the IAB list, the one a CTV screen shows; the summary states no separate CTV floor.",
    },
    {
      kind: "fixed", test: "ctv_bit_rate", scope: "video_file", basis: "iab", operator: ">=", expected: 1500,
      expected_text: "at least 1500 kbps", source: FILE_SOURCES.renditions,
      reason: "The floor of the IAB's top tier (1500–2500 kbps), the tier of the 1080p rendition; a CTV master under it has no headroom for the transcode to the player's renditions.",
    },
    {
      kind: "fixed", test: "faststart", scope: "video_file", basis: "industry", operator: "==", expected: 1,
      expected_text: "moov atom at the beginning of the file", source: FILE_SOURCES.mp4,
    },
    {
      kind: "fixed", test: "letterboxing", scope: "video_file", basis: "product_default", operator: "==", expected: 0,
      expected_text: "no black bars above and below", source: FILE_SOURCES.noFigure,
      reason: "Encoded bars waste the screen and are doubled (windowboxing) when a player fits the file to a screen of another shape.",
    },
    {
      kind: "fixed", test: "pillarboxing", scope: "video_file", basis: "product_default", operator: "==", expected: 0,
      expected_text: "no black bars left and right", source: FILE_SOURCES.noFigure,
      reason: "As for letterboxing: a 4:3 picture inside a 16:9 frame shows bars on every 16:9 screen.",
    },
    {
      kind: "fixed", test: "leading_black", scope: "video_file", basis: "product_default", operator: "<=", expected: ENDS_MAX_MS,
      expected_text: `at most ${ENDS_MAX_MS} ms`, source: FILE_SOURCES.noFigure,
      reason: "No published figure. A black slate is a broadcast master's leader, not part of a digital spot: the viewer sees a black screen the buyer pays for. A fade from black of up to half a second passes; a 1 s slate fails.",
    },
    {
      kind: "fixed", test: "trailing_black", scope: "video_file", basis: "product_default", operator: "<=", expected: ENDS_MAX_MS,
      expected_text: `at most ${ENDS_MAX_MS} ms`, source: FILE_SOURCES.noFigure,
      reason: "No published figure. Black at the end is dead screen time counted in the spot's length; a fade to black of up to half a second passes.",
    },
    ...endsRules("video_file"),
  ];
}

export function audioFileRules(std: LoudnessStandard): Rule[] {
  return [
    ...loudnessRules("audio_file", std),
    {
      kind: "fixed", test: "sample_rate", scope: "audio_file", basis: "product_default", operator: "><", expected: [44_100, 48_000],
      expected_text: "between 44.1 and 48 kHz", source: FILE_SOURCES.noFigure,
      reason: "Streaming audio and podcast platforms take 44.1 and 48 kHz alike; lower rates sound degraded.",
    },
    ...endsRules("audio_file"),
    {
      kind: "fixed", test: "clipping", scope: "audio_file", basis: "product_default", operator: "==", expected: 0,
      expected_text: "no clipped sample", source: FILE_SOURCES.noFigure,
      reason: "A sample at full scale is a clipped master: the distortion is in the file and no loudness normalisation removes it (the true-peak ceilings of ATSC A/85 and EBU R128 sit below full scale for that reason).",
    },
  ];
}

export function imageFileRules(weights: LookupRule["table"]): Rule[] {
  return [
    {
      kind: "lookup", test: "image_weight", scope: "image_file", basis: "iab", key: "creative_size", operator: "<=", table: weights,
      source: FILE_SOURCES.displayWeight,
      reason: "An image ad's file is its whole initial load, judged against its size's initial-load figure; sizes the table does not list are left out.",
    },
    {
      kind: "fixed", test: "iab_size", scope: "image_file", basis: "iab", operator: "==", expected: 1,
      expected_text: "one of the IAB 2017 fixed sizes", source: FILE_SOURCES.displayWeight,
    },
    {
      kind: "fixed", test: "animation_length", scope: "image_file", basis: "iab", operator: "<=", expected: 15_000,
      expected_text: "at most 15 s, every loop included", source: FILE_SOURCES.animation,
    },
    {
      kind: "fixed", test: "animation_loops", scope: "image_file", basis: "industry", operator: "<=", expected: 3,
      expected_text: "at most 3 plays", source: FILE_SOURCES.loops,
    },
  ];
}
