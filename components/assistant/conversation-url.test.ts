import { describe, expect, it } from "vitest";
import { conversationHref, parseConversationLocation } from "./conversation-url";

describe("conversation URLs", () => {
  it("reads the KB and conversation ids, ignoring anything that is not an id", () => {
    expect(parseConversationLocation("?kb=kb_1&c=6f1c-22")).toEqual({ kb: "kb_1", c: "6f1c-22" });
    expect(parseConversationLocation("?c=6f1c")).toEqual({ kb: null, c: null });
    expect(parseConversationLocation("?kb=<script>&c=x")).toEqual({ kb: null, c: null });
    expect(parseConversationLocation("?kb=a&c=../../x")).toEqual({ kb: "a", c: null });
  });

  it("writes them beside other parameters, dropping c for a new conversation", () => {
    const base = { pathname: "/", search: "?lang=en&c=old", hash: "#x" };
    expect(conversationHref({ kb: "k", c: "c1" }, base)).toBe("/?lang=en&kb=k&c=c1#x");
    expect(conversationHref({ kb: "k", c: null }, base)).toBe("/?lang=en&kb=k#x");
    expect(conversationHref({ kb: null, c: null }, { pathname: "/", search: "", hash: "" })).toBe("/");
  });
});
