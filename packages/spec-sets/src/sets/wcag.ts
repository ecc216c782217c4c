import type { Rule, SpecSet } from "./types.ts";

// Spec set 3: the accessibility of an ad, cited to WCAG 2.2 (W3C Recommendation, 12 December 2024,
// https://www.w3.org/TR/WCAG22/) success criteria. Each figure is the criterion's own; none is ours.
const WCAG = "WCAG 2.2 (https://www.w3.org/TR/WCAG22/)";
const SC = {
  flash: `${WCAG} SC 2.3.1 Three Flashes or Below Threshold (Level A), with the general and red flash thresholds definition`,
  pause: `${WCAG} SC 2.2.2 Pause, Stop, Hide (Level A): moving content that starts automatically, lasts more than five seconds and is shown beside other content has a mechanism to pause, stop or hide it`,
  alt: `${WCAG} SC 1.1.1 Non-text Content (Level A)`,
  name: `${WCAG} SC 2.4.4 Link Purpose (In Context) (Level A) and SC 4.1.2 Name, Role, Value (Level A)`,
  contrast: `${WCAG} SC 1.4.3 Contrast (Minimum) (Level AA): 4.5:1, 3:1 for large text`,
  captions: `${WCAG} SC 1.2.2 Captions (Prerecorded) (Level A); IAB VAST 4.1 §3.9.4 <ClosedCaptionFiles>`,
  captionsFile: `${WCAG} SC 1.2.2 Captions (Prerecorded) (Level A)`,
};

const rules: Rule[] = [
  { kind: "fixed", test: "photosensitivity", scope: "tag", basis: "industry", operator: "<=", expected: 3, expected_text: "no more than three general or red flashes in any one second", source: SC.flash },
  { kind: "fixed", test: "motion_pause", scope: "tag", basis: "industry", operator: "==", expected: 1, expected_text: "motion over 5 s can be paused", source: SC.pause },
  { kind: "fixed", test: "image_alt", scope: "tag", basis: "industry", operator: "==", expected: 0, expected_text: "every image has a text alternative", source: SC.alt },
  { kind: "fixed", test: "exit_name", scope: "tag", basis: "industry", operator: "==", expected: 0, expected_text: "every link and button has an accessible name", source: SC.name },
  { kind: "fixed", test: "photosensitivity", scope: "vast_mediafile", basis: "industry", operator: "<=", expected: 3, expected_text: "no more than three general or red flashes in any one second", source: SC.flash },
  { kind: "fixed", test: "photosensitivity", scope: "video_file", basis: "industry", operator: "<=", expected: 3, expected_text: "no more than three general or red flashes in any one second", source: SC.flash },
  { kind: "fixed", test: "captions", scope: "video_file", basis: "industry", operator: ">=", expected: 1, expected_text: "the file carries a caption track", source: SC.captionsFile },
  { kind: "fixed", test: "captions", scope: "vast_xml", basis: "industry", operator: "==", expected: 0, expected_text: "every video declares closed captions", source: SC.captions },
  { kind: "fixed", test: "text_contrast", scope: "tag", basis: "industry", operator: "==", expected: 0, expected_text: "all text meets the AA contrast ratio", source: SC.contrast },
];

export const wcagSpecSet: SpecSet = {
  id: 3,
  name: "WCAG 2.2 accessibility",
  description:
    "The creative's accessibility and photosensitivity, measured: flashes from its frames (2.3.1), motion and its pause control (2.2.2), and axe-core's image alternative, link/button name and text contrast rules in every frame (1.1.1, 2.4.4/4.1.2, 1.4.3); for VAST, closed captions declared for every video (1.2.2); for VAST media files, flashes from every frame of each Linear creative's smallest decodable rendition (2.3.1); for video files (scanVideo), flashes from every frame (2.3.1) and a caption track carried in the file (1.2.2). Ad tags, zips, VAST and video files.",
  notes: [
    "Flash area: a quarter of a 10-degree visual field, WCAG's 341x256 px at 1024x768 scaled to the scan's viewport (a third of its width and height).",
    "A flash verdict is not evaluated when frames may have been missed (a starved renderer, a screencast at its in-flight limit) and no risk was seen.",
    "VAST: one rendition per Linear creative is analysed for flashes, the smallest decodable progressive video (a flash is the same on every rendition); the creative's other renditions are not applicable.",
    "Video files: flash area a quarter of a third of the picture's width and height; every frame at the video's own rate, at most 60 a second. Captions delivered beside a raw file (a sidecar WebVTT) cannot be seen in it: the captions test counts tracks carried in the file.",
    "Text drawn into a canvas or baked into an image cannot be read by axe-core: it is named in the text_contrast result, not passed silently.",
  ],
  rules,
  omitted: [],
};
