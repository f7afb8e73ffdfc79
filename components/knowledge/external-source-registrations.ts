"use client";
// Registers, from the configured providers (GET /v1/external-sources), what the core UI needs
// for each external source type: the document-list view when the provider can list, and an
// opener when it can resolve a source to a page. Provider-neutral: nothing here names a
// provider; a type with neither gets the plain fallbacks (no browse entry, plain-text reference).
import { openExternalSource } from "@/components/api/queries";
import type { ExternalProviderStatus } from "@/components/api/types";
import { registerSourceOpener } from "@/components/sources/opener-registry";
import { registerKnowledgeSourceView } from "@/components/sources/source-view-registry";
import { DocumentListView } from "./document-listing";

const done = new Set<string>();

export function registerExternalSources(providers: ExternalProviderStatus[]): void {
  for (const p of providers) {
    if (p.builtin) continue;
    const sig = `${p.key}:${p.capabilities.list_documents ? 1 : 0}:${p.openable ? 1 : 0}`;
    if (done.has(sig)) continue;
    done.add(sig);
    if (p.capabilities.list_documents) registerKnowledgeSourceView(p.key, DocumentListView);
    if (p.openable) {
      registerSourceOpener(p.key, async (ref) => {
        if (!ref.source_id) throw new Error("reference without a source id");
        // Opened in a new tab before the request, so popup blockers see the user's click.
        const tab = window.open("about:blank", "_blank");
        try {
          const { url } = await openExternalSource(p.key, ref.source_id);
          if (!/^https?:\/\//i.test(url)) throw new Error("not an http(s) URL");
          if (tab) {
            tab.opener = null;
            tab.location.href = url;
          } else window.open(url, "_blank", "noopener,noreferrer");
        } catch (e) {
          tab?.close();
          throw e;
        }
      });
    }
  }
}
