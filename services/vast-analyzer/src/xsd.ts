import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { XmlDocument, XmlValidateError, XsdValidator } from "libxml2-wasm";

// Validation against the IAB XSD of the document's version, with the line of every finding. The IAB schemas are
// not shipped with the product (IAB Tech Lab publishes them with a warranty disclaimer and no licence grant): the
// operator points VAST_XSD_DIR at a folder holding them (the IAB "vast" repository's files: vast_2.0.1.xsd,
// vast3_draft.xsd, vast4.xsd, vast_4.1.xsd, vast_4.2.xsd). Without it, or for a version with no schema (1.0, 4.3),
// nothing is validated and the check says why. libxml2 (MIT) runs as WebAssembly (libxml2-wasm, MIT): no native
// build, no network; documents reach it only after the preflight refused any DOCTYPE, so no entity is expanded.

export interface SchemaResult {
  schema: string;
  findings: Array<{ line: number; message: string }>;
  error: string;
}

export interface SchemaValidator {
  /** Whether the operator gave schemas (VAST_XSD_DIR): without them nothing is validated and no check is reported. */
  readonly configured: boolean;
  validate(xml: string, version: string): SchemaResult;
}

const SCHEMA_OF: Record<string, string> = {
  "2.0": "vast_2.0.1.xsd",
  "2.0.1": "vast_2.0.1.xsd",
  "3.0": "vast3_draft.xsd",
  "4.0": "vast4.xsd",
  "4.1": "vast_4.1.xsd",
  "4.2": "vast_4.2.xsd",
};
const VAST_NS = "http://www.iab.com/VAST";
const MAX_FINDINGS = 50;

export function createSchemaValidator(dir: string | undefined): SchemaValidator {
  const cache = new Map<string, XsdValidator>();
  function validatorFor(file: string): XsdValidator {
    let v = cache.get(file);
    if (!v) {
      const schemaDoc = XmlDocument.fromString(readFileSync(join(dir!, file), "utf8"));
      try {
        v = XsdValidator.fromDoc(schemaDoc);
      } finally {
        schemaDoc.dispose();
      }
      cache.set(file, v);
    }
    return v;
  }
  return {
    configured: dir !== undefined,
    validate(xml, version) {
      const file = SCHEMA_OF[version.trim()];
      if (!file) {
        return { schema: "", findings: [], error: `no IAB schema for VAST ${version || "(no version)"}: IAB published XSDs for 2.0, 3.0, 4.0, 4.1 and 4.2 only` };
      }
      if (!dir) return { schema: "", findings: [], error: "not validated: no IAB schemas configured (VAST_XSD_DIR)" };
      if (!existsSync(join(dir, file))) return { schema: "", findings: [], error: `not validated: ${file} is not in VAST_XSD_DIR` };
      const validator = validatorFor(file);
      // The 4.x schemas have a target namespace; ad servers often omit xmlns. Validate such a document as if it
      // declared the VAST namespace (same lines), so the findings are about its structure, not the missing xmlns.
      const source = file.startsWith("vast4") || file.startsWith("vast_4") ? withVastNamespace(xml) : xml;
      let doc: XmlDocument;
      try {
        doc = XmlDocument.fromString(source);
      } catch (err) {
        return { schema: file, findings: [], error: `not validated: libxml2 could not parse it (${err instanceof Error ? err.message.slice(0, 200) : "error"})` };
      }
      try {
        validator.validate(doc);
        return { schema: file, findings: [], error: "" };
      } catch (err) {
        if (!(err instanceof XmlValidateError)) throw err;
        const findings = err.details.slice(0, MAX_FINDINGS).map((d) => ({ line: d.line, message: d.message.trim().replace(/\{http:\/\/www\.iab\.com\/VAST\}/g, "") }));
        return { schema: file, findings, error: "" };
      } finally {
        doc.dispose();
      }
    },
  };
}

/** Adds xmlns="http://www.iab.com/VAST" to the <VAST> start tag when it declares no default namespace. */
export function withVastNamespace(xml: string): string {
  const m = /<VAST\b[^>]*>/.exec(xml);
  if (!m || /\sxmlns\s*=/.test(m[0])) return xml;
  return xml.slice(0, m.index) + m[0].replace(/^<VAST\b/, `<VAST xmlns="${VAST_NS}"`) + xml.slice(m.index + m[0].length);
}
