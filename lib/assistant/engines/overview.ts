// The extractive engine's answer to "what does this knowledge base contain?" (issue 20 item 6):
// an outline of the KB's files and their top-level headings, each file cited by its first
// passage. Retrieval would pick whichever passage happens to say "内容" (an FAQ entry); the
// outline is what a reader asking this wants. Pure.
import type { FileOutline } from "@/lib/retrieval/kb-overview";

const OVERVIEW_ZH =
  /(?:知识库|资料库|文档|文件|资料)[^。？?]{0,8}(?:主要)?(?:包含|包括|涵盖|收录|有|讲|介绍|关于)[^。？?]{0,4}(?:哪些|什么|啥)(?:内容|文件|文档|资料|主题)?|(?:有|包含)哪些(?:文件|文档|资料)|(?:概览|概况|总览|目录)/;
const OVERVIEW_EN =
  /\b(?:what (?:does|do|is in|'s in) (?:this|the|my) (?:knowledge base|kb|documents?|files?)(?: mainly)?(?: contain| cover| include| about|\b)|which (?:files|documents) (?:are|does)|overview of (?:this|the) (?:knowledge base|documents))/i;

export function isOverviewQuestion(question: string): boolean {
  const q = question.trim();
  return q.length <= 60 && (OVERVIEW_ZH.test(q) || OVERVIEW_EN.test(q));
}

export function composeOverview(outlines: FileOutline[], zh: boolean): string {
  if (!outlines.length) return "";
  const lines = outlines.map((o, i) => {
    const topics = o.headings.length ? (zh ? `：${o.headings.join("、")}` : `: ${o.headings.join("; ")}`) : "";
    return `- **${o.hit.fileName}**${topics} [${i + 1}]`;
  });
  const head = zh ? `这个知识库有 ${outlines.length} 个可检索的文件：` : `This knowledge base has ${outlines.length} searchable file${outlines.length === 1 ? "" : "s"}:`;
  return `${head}\n${lines.join("\n")}`;
}
