"use client";
// What the document viewer shows. Openers write here; the viewer reads it. `nonce` changes on
// every open so opening the same page twice scrolls and flashes the highlight again.
import { create } from "zustand";

export interface ViewerTarget {
  kbId: string;
  fileId: string;
  fileName: string | null;
  page: number | null;
  quote: string | null;
  chunkId: string | null;
  nonce: number;
}

interface ViewerState {
  target: ViewerTarget | null;
  open: (t: Omit<ViewerTarget, "nonce">) => void;
  close: () => void;
}

export const useViewerStore = create<ViewerState>((set, get) => ({
  target: null,
  open: (t) => set({ target: { ...t, nonce: (get().target?.nonce ?? 0) + 1 } }),
  close: () => set({ target: null }),
}));

export const useViewerTarget = () => useViewerStore((s) => s.target);
