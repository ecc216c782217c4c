export { decodeJpeg, decodePng, dominantColor, encodeJpeg, MAX_DECODE_PIXELS, thumbnailJpeg, thumbnailRaster, type Raster } from "./raster.ts";
export { hasBorder, MAX_BAND_CSS } from "./border.ts";
export { gifAnimation, type GifAnimation } from "./gif-animation.ts";
export { createFlashAnalyzer, isSaturatedRed, relativeLuminance, type FlashAnalyzer, type FlashOptions, type FlashResult } from "./flash.ts";
export { apngAnimation, imageAnimation, webpAnimation, type ImageAnimation } from "./image-animation.ts";
