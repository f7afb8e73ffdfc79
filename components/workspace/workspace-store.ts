"use client";
// UI state of the workspace: which KB is selected (shared by the KB list and the assistant's
// dropdown, so they can never disagree), which main tab shows, and the phone-only sheets.
import { create } from "zustand";

export const LAST_KB_STORAGE_KEY = "knowledge_assistant:last_kb_id";

export function readStoredKbId(): string | null {
  try {
    return window.localStorage.getItem(LAST_KB_STORAGE_KEY);
  } catch {
    return null;
  }
}

type MainTab = "files" | "viewer" | "graph" | "retrieval-test" | "evaluation" | "feedback";

interface WorkspaceState {
  selectedKbId: string | null;
  mainTab: MainTab;
  assistantSheetOpen: boolean;
  kbDrawerOpen: boolean;
  createKbRequested: number;
  selectKb: (id: string | null) => void;
  setMainTab: (tab: MainTab) => void;
  setAssistantSheetOpen: (open: boolean) => void;
  setKbDrawerOpen: (open: boolean) => void;
  /** Lets the assistant's empty state open the create dialog that lives in the KB list. */
  requestCreateKb: () => void;
}

export const useWorkspaceStore = create<WorkspaceState>((set) => ({
  selectedKbId: null,
  mainTab: "files",
  assistantSheetOpen: false,
  kbDrawerOpen: false,
  createKbRequested: 0,
  selectKb: (id) => {
    set({ selectedKbId: id });
    try {
      if (id) window.localStorage.setItem(LAST_KB_STORAGE_KEY, id);
    } catch {
      // Storage unavailable: the choice lasts for this page only.
    }
  },
  setMainTab: (mainTab) => set({ mainTab }),
  setAssistantSheetOpen: (assistantSheetOpen) => set({ assistantSheetOpen }),
  setKbDrawerOpen: (kbDrawerOpen) => set({ kbDrawerOpen }),
  requestCreateKb: () => set((s) => ({ createKbRequested: s.createKbRequested + 1, kbDrawerOpen: true })),
}));

export const useSelectedKbId = () => useWorkspaceStore((s) => s.selectedKbId);
export const useMainTab = () => useWorkspaceStore((s) => s.mainTab);
