import { bytes, withUnit } from "../format.ts";
import { bulletList, esc, finite, list, objs, table, text, type J } from "../html.ts";

// An HTML5 zip: its files, its images against a re-encode at the same quality, and what it loads from outside.

export function renderZipFiles(report: J): string {
  const files = objs(report.file_structure);
  if (files.length === 0) return "";
  return table(
    [{ head: "File", kind: "url" }, { head: "Type" }, { head: "Size", kind: "num" }],
    files.map((f) => [esc(f.name), esc(f.type), esc(bytes(finite(f.bytes) ?? 0))]),
    { max: 500 },
  );
}

export function renderZipImages(report: J): string {
  const images = objs(report.images);
  if (images.length === 0) return "";
  return table(
    [{ head: "Image", kind: "url" }, { head: "Size", kind: "num" }, { head: "Re-encoded", kind: "num" }, { head: "Could save", kind: "num" }, { head: "Pixels", kind: "nowrap" }, { head: "Note" }],
    images.map((i) => {
      const size = finite(i.bytes) ?? 0;
      const re = finite(i.reencoded_bytes);
      const saving = re !== undefined && size > 0 ? Math.max(0, (1 - re / size) * 100) : undefined;
      return [
        esc(i.name),
        esc(bytes(size)),
        esc(re === undefined ? "not checked" : bytes(re)),
        esc(saving === undefined ? "" : withUnit(saving, "%")),
        esc(`${text(i.width)}×${text(i.height)}`),
        esc(i.error),
      ];
    }),
    { max: 200 },
  );
}

export const renderExternalAssets = (report: J): string => bulletList(list(report.external_assets).map(text), { max: 200, code: true });
