// Declarations must mean exactly what the schema means (issue #16). Each case emits the `code`
// tool's declarations for one input schema, then asks tsc whether the generated input type and
// the expected type accept the same values (each assignable to the other), and that the whole
// text compiles. The cases are the ones found wrong in review; the corpus test builds on this.
// All cases compile as one program (each case file is a module, so none sees another's names).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { toolDeclarations } from "../../../src/declarations/tool-declarations";
import { dtsDiagnosticsByFile } from "../../helpers/compile-dts";
import { CASES, type Case } from "./exactness-cases";

const dir = mkdtempSync(join(tmpdir(), "exactness-"));

/** Writes a module checking the generated input type against the expected one. */
function checkFile(index: number, test: Case): string {
  const { text, tools } = toolDeclarations([{ name: "probe", inputSchema: test.schema }]);
  const input = tools[0]!.types[0]!;
  const file = join(dir, `case-${index}.ts`);
  writeFileSync(
    file,
    `${text}
${test.expectedTypes ?? ""}
type Expected = ${test.expected};
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same: Same<${input}, Expected> = true;
type Param = Parameters<typeof codemode.probe>[0];
const required: undefined extends Param ? false : true = ${test.inputRequired ?? false};
export { same, required };
`,
  );
  return file;
}

describe("declarations mean exactly the schema", () => {
  const files = CASES.map((test, index) => checkFile(index, test));
  let diagnostics = new Map<string, string[]>();
  beforeAll(() => {
    diagnostics = dtsDiagnosticsByFile(files);
  });

  it.each(CASES.map((c, i) => [c.name, i, c] as const))("%s", (_name, index, test) => {
    expect(diagnostics.get(files[index]!)).toEqual([]);
    if (test.emits)
      expect(toolDeclarations([{ name: "probe", inputSchema: test.schema }]).text).toContain(
        test.emits,
      );
  });
});
