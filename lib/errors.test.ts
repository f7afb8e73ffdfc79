import { describe, expect, it, vi } from "vitest";
import { toErrorResponse } from "@/lib/api/envelope";
import { AppError, isAppError } from "./errors";

// Next bundles lib/errors into several chunks; an error made by another chunk's copy of the class
// must still map to its own code (issue 16, item 8).
describe("AppError identity", () => {
  it("recognises an AppError made by another copy of the module (another bundle chunk)", async () => {
    vi.resetModules();
    const other = await import("./errors");
    expect(other.AppError).not.toBe(AppError);
    const foreign = new other.AppError("FILE_NOT_IN_KNOWLEDGE");
    expect(foreign instanceof AppError).toBe(false);
    expect(isAppError(foreign)).toBe(true);
    const res = toErrorResponse(foreign);
    expect(await res.json()).toEqual({ code: "FILE_NOT_IN_KNOWLEDGE", msg: "The file does not belong to this knowledge base.", data: null });
  });

  it("does not take a look-alike for an AppError: an unbranded object or an unknown code is internal", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    const lookAlike = Object.assign(new Error("secret internals"), { code: "FILE_NOT_FOUND" });
    expect(isAppError(lookAlike)).toBe(false);
    expect((await toErrorResponse(lookAlike).json()).code).toBe("INTERNAL_ERROR");
    const badCode = new AppError("FORBIDDEN");
    (badCode as unknown as { code: string }).code = "NOT_A_CODE";
    expect(isAppError(badCode)).toBe(false);
    spy.mockRestore();
  });
});
