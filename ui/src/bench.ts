// The benchmarks and their names for people. Both come from the Rust core (`BenchmarkId::ALL` and
// `BenchmarkId::label`, generated into bindings.ts); no page spells a benchmark's name out.
import { BENCHES, BENCH_LABEL, SCORINGS, SCORING_LABEL } from "./bindings";

export { BENCHES, BENCH_LABEL, SCORINGS, SCORING_LABEL };

/** Every benchmark's name in prose: "EVM-QuestBench, Intent2Tx and PILOT-Bench". */
export function benchNames(): string {
  const names = BENCHES.map((b) => BENCH_LABEL[b]);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
