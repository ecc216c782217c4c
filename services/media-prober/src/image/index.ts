export { createImageAnalyzer, DEFAULT_IMAGE_LIMITS, type AnalyzeOptions, type ImageAnalyzer, type ImageAnalyzerDeps, type ImageLimits } from "./analyzer.ts";
export { DEFAULT_DECODE_OPTIONS, type DecodeProcessOptions } from "./decode-process.ts";
export { ImageInputError } from "./errors.ts";
export { IMAGE_FIELD, type ImageFileFields } from "./report.ts";
