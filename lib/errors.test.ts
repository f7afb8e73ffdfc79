import { describe, expect, it } from "vitest";
import { AppError, isAppError } from "./errors";

describe("isAppError", () => {
  it("recognizes an AppError from another copy of this module (Next bundles it into several chunks)", () => {
    // What a second chunk's class looks like: same name and shape, another identity.
    class ForeignAppError extends Error {
      readonly code: string;
      constructor(code: string, message: string) {
        super(message);
        this.name = "AppError";
        this.code = code;
      }
    }
    expect(isAppError(new AppError("PROVIDER_NOT_FOUND"))).toBe(true);
    expect(isAppError(new ForeignAppError("PROVIDER_UNAVAILABLE", "x"))).toBe(true);
    expect(isAppError(new ForeignAppError("NOT_OURS", "x"))).toBe(false);
    expect(isAppError(Object.assign(new Error("x"), { code: "FORBIDDEN" }))).toBe(false);
    expect(isAppError({ name: "AppError", code: "FORBIDDEN" })).toBe(false);
  });
});
