// Every Image in a report carries an artifact id; the client needs a URL. Walking the message tree (rather than
// listing fields) keeps new image fields (posters, film strips, future ones) from being silently left without URL.
export function fillImageUrls(message: unknown, urlFor: (id: string) => string): void {
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== "object" || v instanceof Uint8Array || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach(visit);
      return;
    }
    const o = v as Record<string, unknown>;
    if (o.$typeName === "cva.report.v1.Image" && typeof o.id === "string" && o.id !== "") o.url = urlFor(o.id);
    for (const child of Object.values(o)) visit(child);
  };
  visit(message);
}
