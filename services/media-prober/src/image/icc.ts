/**
 * The description of an embedded ICC profile ("sRGB IEC61966-2.1", "Display P3", "U.S. Web Coated (SWOP) v2"): the
 * `desc` tag, as ICC v2 (textDescriptionType: ASCII) or v4 (multiLocalizedUnicodeType: UTF-16BE, English first).
 * Every offset is checked against the profile's length; a profile without a readable description gives "".
 */
export function iccDescription(icc: Uint8Array | undefined): string {
  if (!icc || icc.length < 132) return "";
  const dv = new DataView(icc.buffer, icc.byteOffset, icc.byteLength);
  const count = dv.getUint32(128);
  for (let k = 0; k < count && 132 + 12 * (k + 1) <= icc.length; k++) {
    const at = 132 + 12 * k;
    if (dv.getUint32(at) !== 0x64657363) continue; // 'desc'
    const off = dv.getUint32(at + 4);
    const size = dv.getUint32(at + 8);
    if (off + size > icc.length || size < 12) return "";
    const type = String.fromCharCode(...icc.subarray(off, off + 4));
    if (type === "desc") {
      const n = dv.getUint32(off + 8);
      if (n === 0 || off + 12 + n > off + size) return "";
      return clean(new TextDecoder("latin1").decode(icc.subarray(off + 12, off + 12 + n)));
    }
    if (type === "mluc") {
      const records = dv.getUint32(off + 8);
      const recSize = dv.getUint32(off + 12);
      if (recSize < 12) return "";
      let chosen: string | undefined;
      for (let r = 0; r < records && off + 16 + recSize * (r + 1) <= off + size; r++) {
        const rec = off + 16 + recSize * r;
        const lang = String.fromCharCode(icc[rec]!, icc[rec + 1]!);
        const len = dv.getUint32(rec + 4);
        const strOff = dv.getUint32(rec + 8);
        if (off + strOff + len > off + size) continue;
        const text = new TextDecoder("utf-16be").decode(icc.subarray(off + strOff, off + strOff + len));
        if (chosen === undefined || lang === "en") chosen = text;
        if (lang === "en") break;
      }
      return clean(chosen ?? "");
    }
    return "";
  }
  return "";
}

const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 200);
