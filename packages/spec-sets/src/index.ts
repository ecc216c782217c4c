// @cva/spec-sets: scan_results tests as pure functions of TagReport / VastReport / ZipReport, judged against spec sets that are
// data (src/sets). See README.md for the tables of every set.
export {
  UnknownSpecSetError,
  compare,
  creativeSizeKey,
  evaluateTag,
  evaluateVast,
  evaluateZip,
  getSpecSet,
  isKnownSpecId,
  listSpecSets,
  mediaFileGroup,
} from "./engine.ts";
export { SPEC_SETS } from "./sets/index.ts";
export { mediaFileTests, tagTests, vastXmlTests, zipTests } from "./checks/registry.ts";
export type { Basis, Expected, LookupKey, Omission, Operator, Rule, SpecSet, Threshold } from "./sets/types.ts";
export type { DataType, MediaFileInput, MediaFileTest, Measurement, Scope, TagTest, TestMeta, VastXmlTest, ZipTest } from "./types.ts";
