"use client";
// Each conversation has a URL: `/?kb=<kb id>&c=<conversation id>` (a new, empty conversation is
// `/?kb=<kb id>`). Reload opens the conversation being read, not the newest one; back and
// forward walk the conversations the reader opened. The browser's History API is the store:
// switching conversation or KB pushes an entry, a question that creates the conversation
// replaces the empty one (so back does not land on a blank page), popstate loads what the
// entry names.
import { useEffect } from "react";

export interface ConversationLocation {
  kb: string | null;
  c: string | null;
}

// Ids are UUIDs or similar opaque tokens; anything else in the URL is ignored.
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function parseConversationLocation(search: string): ConversationLocation {
  const params = new URLSearchParams(search);
  const kb = params.get("kb");
  const c = params.get("c");
  const okKb = kb && ID.test(kb) ? kb : null;
  return { kb: okKb, c: okKb && c && ID.test(c) ? c : null };
}

export function conversationHref(loc: ConversationLocation, base: { pathname: string; search: string; hash: string }): string {
  const params = new URLSearchParams(base.search);
  params.delete("kb");
  params.delete("c");
  if (loc.kb) params.set("kb", loc.kb);
  if (loc.kb && loc.c) params.set("c", loc.c);
  const q = params.toString();
  return `${base.pathname}${q ? `?${q}` : ""}${base.hash}`;
}

export function readConversationLocation(): ConversationLocation {
  if (typeof window === "undefined") return { kb: null, c: null };
  return parseConversationLocation(window.location.search);
}

export function writeConversationLocation(loc: ConversationLocation, mode: "push" | "replace"): void {
  const href = conversationHref(loc, window.location);
  if (href === `${window.location.pathname}${window.location.search}${window.location.hash}`) return;
  const state = { ...(window.history.state ?? {}), kaConversation: loc };
  if (mode === "push") window.history.pushState(state, "", href);
  else window.history.replaceState(state, "", href);
}

// A popstate names a location that the app is still loading: until the state shows it, the
// state must not be written back over it.
let arriving: ConversationLocation | null = null;
// The page's first write corrects what it opened with (e.g. a KB the user cannot read): replace.
let wroteOnce = false;

export interface ConversationUrlHandlers {
  /** The entry names another KB. */
  selectKb: (kbId: string) => void;
  /** The entry names a conversation of the KB (null: a new conversation). */
  openConversation: (kbId: string, conversationId: string | null) => Promise<void>;
}

/**
 * Keeps the URL and what the sidebar shows in step. `ready` is false until the sidebar has
 * decided what the page opens with (the URL's conversation, else the last one), so the first
 * write does not wipe the URL's conversation before it is loaded.
 */
export function useConversationUrl(kbId: string | null, conversationId: string | null, ready: boolean, h: ConversationUrlHandlers): void {
  useEffect(() => {
    if (!ready || !kbId) return;
    const now = readConversationLocation();
    const next = { kb: kbId, c: conversationId };
    if (arriving) {
      if (arriving.kb !== next.kb || arriving.c !== next.c) return;
      arriving = null;
      return;
    }
    if (now.kb === next.kb && now.c === next.c) return;
    // The conversation a first question just created takes the place of the empty one.
    const created = now.kb === next.kb && now.c === null && next.c !== null;
    writeConversationLocation(next, !wroteOnce || !now.kb || created ? "replace" : "push");
    wroteOnce = true;
  }, [kbId, conversationId, ready]);

  const { selectKb, openConversation } = h;
  useEffect(() => {
    const onPop = () => {
      const loc = readConversationLocation();
      if (!loc.kb) return;
      arriving = loc;
      if (loc.kb !== kbId) selectKb(loc.kb);
      openConversation(loc.kb, loc.c)
        // Once React has rendered what was loaded (or nothing changed at all), writes resume.
        .then(() => setTimeout(() => (arriving = null), 0))
        .catch(() => {
          // Gone (deleted, or another user's): show a new conversation and say so in the URL.
          arriving = null;
          writeConversationLocation({ kb: loc.kb, c: null }, "replace");
          void openConversation(loc.kb!, null);
        });
    };
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, [kbId, selectKb, openConversation]);
}
