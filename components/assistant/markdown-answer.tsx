"use client";
// Answer text as Markdown, treated as untrusted (SPEC §12): raw HTML is skipped, links are
// http(s) only, show their host and ask before opening (external-link.tsx), images are never fetched (alt text and a
// link instead), and `[n]` citation markers become buttons that jump to reference card n.
import { memo, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { useT } from "@/components/i18n/locale-store";
import { ExternalLink } from "./external-link";
import { splitMarkers } from "./markers";

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  data?: { hName?: string; hProperties?: Record<string, string> };
}

const SKIP_INSIDE = new Set(["link", "linkReference", "inlineCode", "code", "definition"]);

function markCitations(node: MdNode): void {
  if (!node.children || SKIP_INSIDE.has(node.type)) return;
  const out: MdNode[] = [];
  for (const child of node.children) {
    if (child.type === "text" && child.value && child.value.includes("[")) {
      for (const seg of splitMarkers(child.value)) {
        if (seg.type === "text") out.push({ type: "text", value: seg.value });
        // A text node with hName becomes an element; `data-cite` tells our <sup> renderer apart
        // from GFM footnote <sup>s.
        else out.push({ type: "text", value: seg.raw, data: { hName: "sup", hProperties: { dataCite: String(seg.index) } } });
      }
      continue;
    }
    markCitations(child);
    out.push(child);
  }
  node.children = out;
}

function remarkCitations() {
  return (tree: MdNode) => markCitations(tree);
}

// No typography plugin is installed; these descendant variants give answers readable rhythm.
const PROSE = [
  "text-sm leading-relaxed text-slate-800 break-words",
  "[&_p]:my-2 first:[&_p]:mt-0 [&_ul]:my-2 [&_ul]:list-disc [&_ul]:pl-5 [&_ol]:my-2 [&_ol]:list-decimal [&_ol]:pl-5 [&_li]:my-0.5",
  "[&_h1]:mt-3 [&_h1]:mb-1 [&_h1]:text-base [&_h1]:font-semibold [&_h2]:mt-3 [&_h2]:mb-1 [&_h2]:font-semibold [&_h3]:mt-2 [&_h3]:font-semibold",
  "[&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_code]:text-[0.8em] [&_pre]:my-2 [&_pre]:overflow-x-auto [&_pre]:rounded-lg [&_pre]:bg-slate-900 [&_pre]:p-3 [&_pre]:text-slate-100 [&_pre_code]:bg-transparent",
  "[&_blockquote]:my-2 [&_blockquote]:border-l-4 [&_blockquote]:border-slate-200 [&_blockquote]:pl-3 [&_blockquote]:text-slate-600",
  "[&_th]:border [&_th]:border-slate-200 [&_th]:bg-slate-50 [&_th]:px-2 [&_th]:py-1 [&_td]:border [&_td]:border-slate-200 [&_td]:px-2 [&_td]:py-1",
].join(" ");

export function safeHref(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : "";
  } catch {
    return "";
  }
}

interface MarkdownAnswerProps {
  content: string;
  /** Indexes that have a reference card; other markers are flagged, not linked. */
  referenceIndexes: ReadonlySet<number>;
  /** Reference `index` → the number shown (cited references are numbered in citation order). */
  displayOf?: ReadonlyMap<number, number>;
  onCite: (index: number) => void;
}

function MarkdownAnswerImpl({ content, referenceIndexes, displayOf, onCite }: MarkdownAnswerProps) {
  const t = useT();
  const components: Components = {
    a({ href, children }) {
      const safe = href ? safeHref(href) : "";
      if (!safe) return <span className="text-slate-700">{children}</span>;
      return <ExternalLink href={safe}>{children}</ExternalLink>;
    },
    img({ alt, src }) {
      const safe = typeof src === "string" ? safeHref(src) : "";
      const label = t("chat.imageAlt", { alt: alt || "—" });
      return (
        <span className="mx-0.5 inline-flex items-center gap-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">
          {label}
          {safe ? (
            <a href={safe} target="_blank" rel="noopener noreferrer" className="text-indigo-700 underline" title={t("chat.imageBlocked")}>
              ↗
            </a>
          ) : null}
        </span>
      );
    },
    sup(props) {
      const cite = (props as { "data-cite"?: string })["data-cite"];
      if (!cite) return <sup>{props.children as ReactNode}</sup>;
      const index = Number(cite);
      if (!referenceIndexes.has(index)) {
        return (
          <sup className="text-slate-500" title={t("chat.markerMissing", { index })}>
            [{index}]
          </sup>
        );
      }
      const shown = displayOf?.get(index) ?? index;
      return (
        <sup>
          <button
            type="button"
            data-testid="citation-marker"
            data-index={shown}
            data-ref-index={index}
            aria-label={t("chat.jumpTo", { index: shown })}
            onClick={() => onCite(index)}
            className="mx-0.5 inline-block rounded bg-indigo-50 px-1 align-baseline text-[0.7rem] font-semibold leading-4 text-indigo-700 ring-1 ring-indigo-200 hover:bg-indigo-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
          >
            {shown}
          </button>
        </sup>
      );
    },
    table({ children }) {
      return (
        <div className="my-2 overflow-x-auto">
          <table className="min-w-full border-collapse text-xs">{children}</table>
        </div>
      );
    },
  };
  return (
    <div className={PROSE}>
      <ReactMarkdown skipHtml remarkPlugins={[remarkGfm, remarkCitations]} urlTransform={(url) => safeHref(url)} components={components}>
        {content}
      </ReactMarkdown>
    </div>
  );
}

export const MarkdownAnswer = memo(MarkdownAnswerImpl);
