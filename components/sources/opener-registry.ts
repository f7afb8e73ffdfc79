// Opener registry (SPEC §11, seed 002): core code hands a reference to whatever opener was
// registered for its `source_type`; it never imports provider code. With no opener, or when
// an opener throws, the caller renders the source as plain text instead of a dead link.
import type { SourceReference } from "@/components/api/types";

export interface OpenerContext {
  /** The KB the answer came from; built-in KB references are opened inside it. */
  knowledgeId: string | null;
}

export type SourceOpener = (ref: SourceReference, ctx: OpenerContext) => void | Promise<void>;

const openers = new Map<string, SourceOpener>();

/** Registers an opener; returns a function that removes it (for tests and hot reload). */
export function registerSourceOpener(sourceType: string, opener: SourceOpener): () => void {
  openers.set(sourceType, opener);
  return () => {
    if (openers.get(sourceType) === opener) openers.delete(sourceType);
  };
}

export function getSourceOpener(sourceType: string): SourceOpener | undefined {
  return openers.get(sourceType);
}

export function hasSourceOpener(sourceType: string): boolean {
  return openers.has(sourceType);
}

export type OpenResult = "opened" | "no-opener" | "failed";

/** Runs the opener for a reference; never throws, so a bad provider cannot break the chat. */
export async function openSource(ref: SourceReference, ctx: OpenerContext): Promise<OpenResult> {
  const opener = openers.get(ref.source_type);
  if (!opener) return "no-opener";
  try {
    await opener(ref, ctx);
    return "opened";
  } catch (e) {
    console.warn(`[sources] opener for "${ref.source_type}" failed`, e);
    return "failed";
  }
}
