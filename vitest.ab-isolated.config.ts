import base from "./vitest.config.ts";
const projects = (base.test!.projects as any[]).map((p) => p.test?.name === "suite-shared" ? { ...p, test: { ...p.test, isolate: true } } : p);
export default { ...base, test: { ...base.test, projects } };
