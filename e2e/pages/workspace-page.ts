import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, type Locator, type Page } from "@playwright/test";
import { AssistantPanel } from "./assistant-panel";

export class WorkspacePage {
  readonly assistant: AssistantPanel;
  readonly kbList: Locator;
  readonly kbItems: Locator;
  readonly kbTitle: Locator;
  readonly fileRows: Locator;
  readonly uploadInput: Locator;
  readonly dropzone: Locator;
  readonly viewer: Locator;
  readonly userMenu: Locator;

  constructor(readonly page: Page) {
    this.assistant = new AssistantPanel(page);
    this.kbList = page.getByTestId("kb-list");
    this.kbItems = this.kbList.getByTestId("kb-item");
    this.kbTitle = page.getByTestId("kb-title");
    this.fileRows = page.getByTestId("file-row");
    this.uploadInput = page.getByTestId("upload-input");
    this.dropzone = page.getByTestId("dropzone");
    this.viewer = page.getByTestId("document-viewer");
    this.userMenu = page.getByTestId("user-menu");
  }

  /** A page of the PDF in the viewer, and the one the open reference cites. */
  viewerPage(page: number): Locator {
    return this.viewer.locator(`[data-testid="viewer-page"][data-page="${page}"]`);
  }

  get viewerTargetPage(): Locator {
    return this.viewer.locator('[data-testid="viewer-page"][data-target="true"]');
  }

  /** Parts of a page drawn by pdf.js: the canvas, the text layer and its highlighted quote. */
  pdfParts(page: Locator): { view: Locator; canvas: Locator; textLayer: Locator; spans: Locator; highlights: Locator } {
    const textLayer = page.getByTestId("pdf-text-layer");
    return {
      view: page.getByTestId("pdf-page-view"),
      canvas: page.getByTestId("pdf-canvas"),
      textLayer,
      spans: textLayer.locator("span"),
      highlights: textLayer.getByTestId("viewer-highlight"),
    };
  }

  /** Size and count of non-white pixels of a page canvas (proof that pdf.js drew something). */
  async canvasInk(canvas: Locator): Promise<{ width: number; height: number; ink: number }> {
    return canvas.evaluate((c: HTMLCanvasElement) => {
      const ctx = c.getContext("2d");
      if (!ctx || c.width === 0 || c.height === 0) return { width: c.width, height: c.height, ink: 0 };
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 200 || data[i + 1]! < 200 || data[i + 2]! < 200) ink++;
      return { width: c.width, height: c.height, ink };
    });
  }

  async goto(): Promise<void> {
    await this.page.goto("/");
    await expect(this.userMenu).toBeVisible();
  }

  kbItem(name: string | RegExp): Locator {
    return this.kbItems.filter({ hasText: name });
  }

  fileRow(name: string | RegExp): Locator {
    return this.fileRows.filter({ hasText: name });
  }

  fileStatus(name: string | RegExp): Locator {
    return this.fileRow(name).getByTestId("file-status");
  }

  async createKb(name: string, description?: string): Promise<void> {
    await this.page.getByTestId("kb-create").click();
    const dialog = this.page.getByTestId("kb-dialog");
    await dialog.getByTestId("kb-name-input").fill(name);
    if (description) await dialog.getByLabel(/描述|Description/).fill(description);
    await dialog.getByTestId("kb-dialog-submit").click();
    await expect(this.kbItem(name)).toBeVisible();
    await expect(this.kbTitle).toHaveText(name);
  }

  async selectKb(name: string | RegExp): Promise<void> {
    await this.kbItem(name).first().click();
    await expect(this.kbTitle).toContainText(name);
  }

  async renameKb(newName: string): Promise<void> {
    await this.page.getByTestId("kb-rename").click();
    const dialog = this.page.getByTestId("kb-dialog");
    await dialog.getByTestId("kb-name-input").fill(newName);
    await dialog.getByTestId("kb-dialog-submit").click();
    await expect(this.kbTitle).toHaveText(newName);
  }

  async deleteSelectedKb(): Promise<void> {
    await this.page.getByTestId("kb-delete").click();
    await this.page.getByTestId("confirm-dialog").getByRole("button", { name: /删除知识库|Delete knowledge base/ }).click();
  }

  async upload(files: string[]): Promise<void> {
    await this.uploadInput.setInputFiles(files);
  }

  /** Drops files on the file panel the way a browser drag-and-drop does (DataTransfer + drop). */
  async dropFiles(files: { path?: string; name: string; mimeType: string; buffer?: Buffer }[]): Promise<void> {
    const payload = await Promise.all(
      files.map(async (f) => ({ name: f.name || path.basename(f.path!), mimeType: f.mimeType, base64: (f.buffer ?? (await readFile(f.path!))).toString("base64") })),
    );
    const dataTransfer = await this.page.evaluateHandle((items) => {
      const dt = new DataTransfer();
      for (const it of items) {
        const bytes = Uint8Array.from(atob(it.base64), (c) => c.charCodeAt(0));
        dt.items.add(new File([bytes], it.name, { type: it.mimeType }));
      }
      return dt;
    }, payload);
    await this.dropzone.dispatchEvent("dragenter", { dataTransfer });
    await this.dropzone.dispatchEvent("dragover", { dataTransfer });
    await this.dropzone.dispatchEvent("drop", { dataTransfer });
  }

  async deleteFile(name: string): Promise<void> {
    await this.fileRow(name).getByRole("button", { name: /删除文件|Delete file/ }).click();
    await this.page.getByTestId("confirm-dialog").getByRole("button", { name: /^(删除|Delete)$/ }).click();
    await expect(this.fileRow(name)).toHaveCount(0);
  }

  async signOut(): Promise<void> {
    await this.userMenu.click();
    await this.page.getByTestId("sign-out").click();
    await expect(this.page).toHaveURL(/\/sign-in/);
  }
}
