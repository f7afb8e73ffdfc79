import { test as base, expect } from "@playwright/test";
import { AssistantPanel } from "./assistant-panel";
import { AuthPage } from "./auth-page";
import { FlowGalleryPage } from "./flow-gallery-page";
import { WorkspacePage } from "./workspace-page";
import { PORTS } from "../support/ports";

export const PASSWORD_URL = `http://127.0.0.1:${PORTS.password}`;
export const MODEL_URL = `http://127.0.0.1:${PORTS.model}`;
export const FAKE_MODEL_URL = `http://127.0.0.1:${PORTS.fakeModel}`;

interface Fixtures {
  workspace: WorkspacePage;
  assistant: AssistantPanel;
  auth: AuthPage;
  gallery: FlowGalleryPage;
  /** Console errors and uncaught exceptions seen by the page during the test. */
  consoleErrors: string[];
}

export const test = base.extend<Fixtures>({
  workspace: async ({ page }, provide) => provide(new WorkspacePage(page)),
  assistant: async ({ page }, provide) => provide(new AssistantPanel(page)),
  auth: async ({ page }, provide) => provide(new AuthPage(page)),
  gallery: async ({ page }, provide) => provide(new FlowGalleryPage(page)),
  consoleErrors: async ({ page }, provide) => {
    const errors: string[] = [];
    page.on("console", (m) => {
      // The app ships no favicon yet; the browser's automatic request for it is not a page error.
      if (m.type() === "error" && !m.location().url.endsWith("/favicon.ico")) errors.push(`${m.text()} (${m.location().url})`);
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    await provide(errors);
  },
});

export { expect };

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}
