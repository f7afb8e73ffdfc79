"use client";
// Whether the user turned agent mode on (issue 17). UI state only: the server decides whether the
// mode is available (bootstrap agent_mode_available) and refuses it otherwise.
import { create } from "zustand";

interface AnswerModeState {
  agent: boolean;
  setAgent: (on: boolean) => void;
}

export const useAnswerModeStore = create<AnswerModeState>((set) => ({
  agent: false,
  setAgent: (on) => set({ agent: on }),
}));
