// Crucible sandbox runner. Loads ethers, says READY, reads one request line from stdin, imports the
// agent module (written after start-up), calls executeSkill once, prints one result line after a
// marker and the request's nonce, and exits (ethers keeps timers alive otherwise).
//
// The result line is the structured channel the harness classifies from: the nonce arrives on
// stdin before the module is imported and lives only in this module's scope, and everything the
// line is written with is captured before the module runs, so the module can print anything (a
// fake marker, fake runtime errors) without forging a result or a failure class.
//
// A module can build or dress up any error object, so an error's type is never proof of a
// permission denial. `runtime: true` on the line says the runner itself saw the runtime refuse:
// the module graph failed to load before any module code ran (a missing or outside file, a
// remote specifier), or the module called a subprocess API (never granted; Deno does not audit
// `run` checks). Every other denial must be confirmed by Deno's own permission audit log, which
// the harness reads (see sandbox.rs).
import "ethers";

const MARKER = "\u001eCRUCIBLE-RESULT\u001e";
const READY = "\u001eCRUCIBLE-READY\u001e";
const enc = new TextEncoder();
const encode = TextEncoder.prototype.encode.bind(enc);
const writeOut = Deno.stdout.writeSync.bind(Deno.stdout);
const stringify = JSON.stringify;
const StringOf = String;
const realExit = Deno.exit;
const NotCapable = Deno.errors.NotCapable;
const PermissionDenied = Deno.errors.PermissionDenied;
const RangeErr = RangeError;
const TypeErr = TypeError;
let nonce = "";
/// Set once the module's code may have run (the marker module, evaluated after the whole graph
/// loaded and before the module, called it): from then on errors may be the module's own.
let evaluating = false;
/// The module called a subprocess API (every call is refused: `run` is never granted).
let ranCommand = false;

function line(json: string): never {
  writeOut(encode("\n" + MARKER + nonce + json + "\n"));
  realExit(0);
}

/// Writes the result line. The object has no prototype and only primitive fields the runner
/// set, so hooks the module installed (`Object.prototype.toJSON`, getters) cannot change it.
function emit(kind: string, message = "", runtime = false): never {
  line(stringify({ __proto__: null, kind, message: StringOf(message), runtime: runtime || ranCommand }));
}

/// The failure class of an error the module threw or caused, decided by its type.
/// Claims `permission_denied` only as a candidate: the harness keeps it when the runtime's audit
/// log (or `runtime`) confirms a denial.
function thrown(e: unknown): never {
  const message = describe(e);
  if (e instanceof NotCapable || e instanceof PermissionDenied) {
    emit("permission_denied", message);
  }
  // Importing anything outside the sandbox's module graph (a remote or outside specifier).
  // A refused or impossible import (Deno reports a refused import read as a TypeError).
  if (
    e instanceof TypeErr &&
    (message.includes("Module not found") || message.includes("remote specifier") ||
      message.includes("Requires "))
  ) {
    emit("permission_denied", message);
  }
  if (
    e instanceof RangeErr &&
    (message.includes("Array buffer allocation failed") || message.includes("Invalid array buffer length"))
  ) {
    emit("memory", message);
  }
  emit("threw", message);
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

// Reads the request line, then keeps stdin as a lifeline: Crucible holds its end open until the
// module's result is read, so end of input means Crucible is gone (killed, whatever the signal)
// and the runner ends at once instead of outliving it.
async function readRequest(): Promise<Record<string, unknown>> {
  const dec = new TextDecoder();
  const reader = Deno.stdin.readable.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) realExit(3);
    text += dec.decode(value, { stream: true });
  }
  (async () => {
    while (!(await reader.read()).done) {
      // Nothing more is sent; anything that comes is ignored.
    }
    realExit(3);
  })().catch(() => realExit(3));
  return JSON.parse(text.split("\n")[0]);
}

// The sandbox has its own network namespace with nothing in it; the gate comes in through a
// Unix socket. Serve it on 127.0.0.1:<gate port> (argv[0]) so the module talks plain HTTP to the
// provider URL it is given. Started before the module exists.
const gatePort = Number(Deno.args[0]);
const gateListener = Deno.listen({ hostname: "127.0.0.1", port: gatePort });
(async () => {
  for await (const conn of gateListener) {
    Deno.connect({ transport: "unix", path: "/sandbox/gate.sock" }).then(
      (gate) => {
        conn.readable.pipeTo(gate.writable).catch(() => {});
        gate.readable.pipeTo(conn.writable).catch(() => {});
      },
      () => conn.close(),
    );
  }
})().catch(() => {});

Deno.stdout.writeSync(enc.encode(READY + "\n"));
const request = await readRequest();
nonce = String(request.nonce);
// The module's own exits and uncaught errors are reported on the channel too.
const processModule = (await import("node:process")).default as unknown as Record<string, unknown>;
const exited = (code?: unknown) =>
  emit("exited", `the module exited (code ${StringOf(code ?? 0)}) without returning`);
(Deno as unknown as Record<string, unknown>).exit = exited;
processModule.exit = exited;
processModule.reallyExit = exited;
processModule.abort = () => exited("abort");
globalThis.addEventListener("error", (e) => {
  e.preventDefault();
  thrown(e.error);
});
globalThis.addEventListener("unhandledrejection", (e) => {
  e.preventDefault();
  thrown(e.reason);
});
const providerUrl = request.providerUrl as string;
const agentAddress = request.agentAddress as string;
const cap = Number(request.cap);

// Subprocesses are never granted and Deno's audit log does not record `run` checks: the runner
// notes every call itself (the call is the attempt, whatever its arguments do).
for (const name of ["spawn", "output", "outputSync"]) {
  const proto = Deno.Command.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const real = proto[name];
  proto[name] = function (this: unknown, ...args: unknown[]) {
    ranCommand = true;
    return real.apply(this, args);
  };
}
// The marker module calls this after the whole graph loaded, just before the module evaluates.
(globalThis as unknown as Record<symbol, unknown>)[Symbol.for("crucible.evaluating")] = () => {
  evaluating = true;
};

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
  // A computed specifier: the module does not exist when this runner starts. `entry.ts` imports
  // the marker module first and then the module, and re-exports the module's namespace.
  const specifier = ["./work", "entry.ts"].join("/");
  mod = (await import(specifier)).agent;
} catch (e) {
  if (!evaluating) {
    // The graph did not load: no module code ran, so the error is the runtime's own.
    const message = describe(e);
    if (
      e instanceof NotCapable || e instanceof PermissionDenied ||
      message.startsWith("TypeError: Module not found") ||
      message.startsWith("TypeError: Requires ") ||
      message.startsWith("TypeError: A remote specifier was requested")
    ) {
      emit("permission_denied", message, true);
    }
    emit("load_error", message);
  }
  thrown(e);
}

const f = mod!.executeSkill ??
  (mod!.default as Record<string, unknown> | undefined)?.executeSkill;
if (f === undefined) emit("no_export");
if (typeof f !== "function") {
  emit("wrong_signature", `executeSkill is a ${typeof f}, not a function`);
}
const arity = (f as (...a: unknown[]) => unknown).length;
if (arity > 3) {
  emit(
    "wrong_signature",
    `executeSkill takes ${arity} parameters; expected (providerUrl, agentAddress, deployedContracts)`,
  );
}

let value: unknown;
try {
  value = await (f as (a: string, b: string, c: unknown) => unknown)(
    providerUrl,
    agentAddress,
    request.deployedContracts,
  );
} catch (e) {
  thrown(e);
}

let text: unknown;
try {
  // The runner's own JSON.stringify (the module may have replaced the global): its output is
  // one JSON value, so the line below stays one object with one `kind`.
  text = stringify(value, (_k, v) => typeof v === "bigint" ? v.toString() : v);
} catch (e) {
  emit("threw", "result is not serialisable: " + describe(e));
}
if (typeof text !== "string") line('{"kind":"ok","value":null}');
if ((text as string).length > cap) {
  emit("output_too_large", `result is ${(text as string).length} bytes; the limit is ${cap}`);
}
line('{"kind":"ok","value":' + (text as string) + "}");
