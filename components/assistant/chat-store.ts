"use client";
// One chat session per KB, so switching KBs and back keeps what was on screen. Stream
// controllers are not state (they are not serialisable and never rendered): they live in a
// module-level map next to the store.
import { create } from "zustand";
import { chatReducer, emptySession, type ChatAction, type ChatSession } from "./chat-reducer";

interface ChatStoreState {
  sessions: Record<string, ChatSession>;
  dispatch: (kbId: string, action: ChatAction) => void;
}

export const useChatStore = create<ChatStoreState>((set) => ({
  sessions: {},
  dispatch: (kbId, action) =>
    set((s) => ({ sessions: { ...s.sessions, [kbId]: chatReducer(s.sessions[kbId] ?? emptySession(), action) } })),
}));

const EMPTY = emptySession();

export function useChatSession(kbId: string | null): ChatSession {
  return useChatStore((s) => (kbId ? (s.sessions[kbId] ?? EMPTY) : EMPTY));
}

export function getChatSession(kbId: string): ChatSession {
  return useChatStore.getState().sessions[kbId] ?? EMPTY;
}
