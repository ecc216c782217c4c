// spec_id validation comes from @cva/spec-sets (the spec sets are data, owned by another package). The package may
// not exist yet in every checkout, so it is loaded dynamically and, when absent, only spec set 0 (IAB guidelines)
// is known.
export type SpecIdCheck = (id: number) => boolean;

export const fallbackIsKnownSpecId: SpecIdCheck = (id) => id === 0;

export async function loadSpecIdCheck(): Promise<SpecIdCheck> {
  const specifier = "@cva/spec-sets";
  try {
    const mod = (await import(/* @vite-ignore */ specifier)) as { isKnownSpecId?: SpecIdCheck };
    if (typeof mod.isKnownSpecId === "function") return mod.isKnownSpecId;
  } catch {
    // not installed yet: fall through
  }
  return fallbackIsKnownSpecId;
}
