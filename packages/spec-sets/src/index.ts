// @cva/spec-sets: scan_results tests as pure functions of TagReport / VastReport / ZipReport, judged against spec sets that are
// data (src/sets). See README.md for the tables of every set.
export {
  UnknownSpecSetError,
  compare,
  creativeSizeKey,
  evaluateAudioFile,
  evaluateImageFile,
  evaluateTag,
  evaluateVast,
  evaluateVideoFile,
  evaluateZip,
  getSpecSet,
  isKnownSpecId,
  listSpecSets,
  mediaFileGroup,
} from "./engine.ts";
export { SPEC_SETS } from "./sets/index.ts";
export { audioFileTests, imageFileTests, mediaFileTests, tagTests, vastXmlTests, videoFileTests, zipTests } from "./checks/registry.ts";
export type { Basis, Expected, LookupKey, Omission, Operator, Rule, SpecSet, Threshold } from "./sets/types.ts";
export type {
  AudioFileTest, DataType, ImageFileTest, MediaFileInput, MediaFileTest, Measurement, Scope, TagTest, TestMeta, VastXmlTest, VideoFileTest, ZipTest,
} from "./types.ts";
