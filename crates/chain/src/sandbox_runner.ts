// Crucible sandbox runner. Loads ethers, says READY, reads one request line from stdin, imports the
// agent module (written after start-up), calls executeSkill once, prints one result line after a
// marker and exits (ethers keeps timers alive otherwise). The agent controls its own return value
// anyway, so nothing here is secret from it.
import "ethers";

const MARKER = "\u001eCRUCIBLE-RESULT\u001e";
const READY = "\u001eCRUCIBLE-READY\u001e";
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

async function readRequest(): Promise<Record<string, unknown>> {
  const dec = new TextDecoder();
  let text = "";
  for await (const chunk of Deno.stdin.readable) {
    text += dec.decode(chunk, { stream: true });
    if (text.includes("\n")) break;
  }
  return JSON.parse(text.split("\n")[0]);
}

Deno.stdout.writeSync(enc.encode(READY + "\n"));
const request = await readRequest();
const providerUrl = request.providerUrl as string;
const agentAddress = request.agentAddress as string;
const cap = Number(request.cap);

// A fixed clock (the chain's block time) when the harness gives one: a script that derives a
// deadline or a salt from the time builds the same transaction on every run of the same seed.
if (typeof request.nowMs === "number") {
  const fixed = request.nowMs;
  const RealDate = Date;
  const FixedDate = function (this: unknown, ...args: unknown[]) {
    if (!new.target) return new RealDate(fixed).toString();
    return args.length === 0 ? new RealDate(fixed) : new (RealDate as unknown as new (...a: unknown[]) => Date)(...args);
  } as unknown as DateConstructor;
  Object.setPrototypeOf(FixedDate, RealDate);
  (FixedDate as { prototype: Date }).prototype = RealDate.prototype;
  FixedDate.now = () => fixed;
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  globalThis.Date = FixedDate;
}

let mod: Record<string, unknown>;
try {
  // A computed specifier: the module does not exist when this runner starts.
  const specifier = ["./work", "agent.ts"].join("/");
  mod = await import(specifier);
} catch (e) {
  emit({ kind: "load_error", message: describe(e) });
}

const f = mod!.executeSkill ??
  (mod!.default as Record<string, unknown> | undefined)?.executeSkill;
if (f === undefined) emit({ kind: "no_export" });
if (typeof f !== "function") {
  emit({ kind: "wrong_signature", message: `executeSkill is a ${typeof f}, not a function` });
}
const arity = (f as (...a: unknown[]) => unknown).length;
if (arity > 3) {
  emit({
    kind: "wrong_signature",
    message: `executeSkill takes ${arity} parameters; expected (providerUrl, agentAddress, deployedContracts)`,
  });
}

let value: unknown;
try {
  value = await (f as (a: string, b: string, c: unknown) => unknown)(
    providerUrl,
    agentAddress,
    request.deployedContracts,
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
