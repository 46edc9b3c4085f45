// Crucible sandbox runner: loads the agent module, calls executeSkill once, prints one result line
// after a marker and exits (ethers keeps timers alive otherwise). The agent controls its own return
// value anyway, so nothing here is secret from it.
const MARKER = "\u001eCRUCIBLE-RESULT\u001e";
const [providerUrl, agentAddress, contractsJson, capText] = Deno.args;
const cap = Number(capText);
const enc = new TextEncoder();

function emit(o: Record<string, unknown>): never {
  Deno.stdout.writeSync(enc.encode("\n" + MARKER + JSON.stringify(o) + "\n"));
  Deno.exit(0);
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const name = e.name || "Error";
    return `${name}: ${e.message}`.slice(0, 4000);
  }
  try {
    return String(e).slice(0, 4000);
  } catch {
    return "unprintable error";
  }
}

let mod: Record<string, unknown>;
try {
  mod = await import("./agent.ts");
} catch (e) {
  emit({ kind: "load_error", message: describe(e) });
}

const f = mod!.executeSkill ??
  (mod!.default as Record<string, unknown> | undefined)?.executeSkill;
if (f === undefined) emit({ kind: "no_export" });
if (typeof f !== "function") {
  emit({ kind: "wrong_signature", message: `executeSkill is a ${typeof f}, not a function` });
}
if ((f as (...a: unknown[]) => unknown).length > 3) {
  emit({
    kind: "wrong_signature",
    message: `executeSkill takes ${(f as (...a: unknown[]) => unknown).length} parameters; expected (providerUrl, agentAddress, deployedContracts)`,
  });
}

let value: unknown;
try {
  value = await (f as (a: string, b: string, c: unknown) => unknown)(
    providerUrl,
    agentAddress,
    JSON.parse(contractsJson),
  );
} catch (e) {
  emit({ kind: "threw", message: describe(e) });
}

let text: string | undefined;
try {
  text = JSON.stringify(value, (_k, v) => typeof v === "bigint" ? v.toString() : v);
} catch (e) {
  emit({ kind: "threw", message: "result is not serialisable: " + describe(e) });
}
if (text === undefined) emit({ kind: "ok", value: null });
if (text!.length > cap) {
  emit({ kind: "output_too_large", message: `result is ${text!.length} bytes; the limit is ${cap}` });
}
Deno.stdout.writeSync(enc.encode("\n" + MARKER + '{"kind":"ok","value":' + text + "}\n"));
Deno.exit(0);
