import { readFileSync } from "node:fs";
import { selectSentences } from "@/lib/assistant/engines/extractive";
import { selectSentences as oldSelect } from "./_old_extractive";
import type { ContextBlock } from "@/lib/assistant/prompt";
import type { RetrievalHit } from "@/lib/retrieval/types";
// Same contexts for both engines: CMRC articles cut in 650-char blocks, 3 per question.
const docs = readFileSync("../../shared/bench/cmrc2018-sent/corpus.jsonl", "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { id: string; text: string });
const qs = readFileSync("../../shared/bench/cmrc2018-sent/queries.jsonl", "utf8").split("\n").filter(Boolean).slice(0, 300).map((l) => JSON.parse(l) as { text: string });
const text = docs.slice(0, 3000).map((d) => d.text).join("");
const ctxs: ContextBlock[][] = qs.map((_, i) => [0, 1, 2].map((k) => { const c = text.slice(((i * 3 + k) * 650) % (text.length - 700), ((i * 3 + k) * 650) % (text.length - 700) + 650); return { index: k + 1, text: c, hit: { content: c, score: 0.8 } as RetrievalHit }; }));
for (const [name, fn] of [["old", oldSelect], ["new", selectSentences], ["old", oldSelect], ["new", selectSentences]] as const) {
  // First pass fills the sentence cache (tokenizing), later passes reuse it, as in the app.
  for (const pass of ["cold", "warm"]) {
    const t0 = performance.now();
    qs.forEach((q, i) => fn(q.text, ctxs[i]!));
    console.log(name, pass, ((performance.now() - t0) / qs.length).toFixed(3), "ms/answer");
  }
}
