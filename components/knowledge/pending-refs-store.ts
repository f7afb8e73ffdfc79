"use client";
// Sources chosen for a conversation that does not exist yet (no question asked): they travel
// with the first question (`external_knowledge_refs`), where the server validates and binds
// them. Per KB, like the chat sessions.
import { create } from "zustand";
import { bindingKey, type BindRequest } from "@/components/sources/source-view-registry";

interface PendingRefsState {
  byKb: Record<string, BindRequest[]>;
  add: (kbId: string, ref: BindRequest) => void;
  remove: (kbId: string, key: string) => void;
  clear: (kbId: string) => void;
}

export const usePendingRefs = create<PendingRefsState>((set) => ({
  byKb: {},
  add: (kbId, ref) =>
    set((s) => {
      const list = s.byKb[kbId] ?? [];
      if (list.some((r) => bindingKey(r) === bindingKey(ref))) return s;
      return { byKb: { ...s.byKb, [kbId]: [...list, ref] } };
    }),
  remove: (kbId, key) => set((s) => ({ byKb: { ...s.byKb, [kbId]: (s.byKb[kbId] ?? []).filter((r) => bindingKey(r) !== key) } })),
  clear: (kbId) => set((s) => ({ byKb: { ...s.byKb, [kbId]: [] } })),
}));

const NONE: BindRequest[] = [];

export function pendingRefsOf(kbId: string): BindRequest[] {
  return usePendingRefs.getState().byKb[kbId] ?? NONE;
}

export function usePendingRefsOf(kbId: string | null): BindRequest[] {
  return usePendingRefs((s) => (kbId ? (s.byKb[kbId] ?? NONE) : NONE));
}
