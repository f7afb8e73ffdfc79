import { writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test, uniqueName } from "../pages/fixtures";

// Files: drag-and-drop upload with live stages, errors next to the file, delete and reparse.
const FIXTURES = path.join(process.cwd(), "e2e", "fixtures");

test.describe("files", () => {
  test.setTimeout(180_000);

  test("drop a PDF and a DOCX, watch the stages, then ask a cited question", async ({ workspace }) => {
    await workspace.goto();
    await workspace.createKb(uniqueName("上传库"));
    await workspace.dropFiles([
      { path: path.join(FIXTURES, "zh-handbook.pdf"), name: "zh-handbook.pdf", mimeType: "application/pdf" },
      { path: path.join(FIXTURES, "report.docx"), name: "report.docx", mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
    ]);
    await expect(workspace.fileRows).toHaveCount(2);
    for (const name of ["zh-handbook.pdf", "report.docx"]) {
      await expect(workspace.fileStatus(name)).toHaveAttribute("data-status", "success", { timeout: 120_000 });
    }
    await expect(workspace.fileRow("zh-handbook.pdf")).toContainText(/\d+ 页/);
    await workspace.assistant.waitForStatus("ready", 30_000);
    await workspace.assistant.ask("离线安装包体积约为多少？");
    const answer = workspace.assistant.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    await expect(workspace.assistant.referenceCards(answer).first()).toContainText("zh-handbook.pdf");
  });

  test("an oversized and an unsupported file show their errors; the rest still uploads", async ({ workspace }, testInfo) => {
    await workspace.goto();
    await workspace.createKb(uniqueName("错误库"));
    const big = testInfo.outputPath("oversized.txt");
    await writeFile(big, Buffer.alloc(51 * 1024 * 1024, 0x61));
    await workspace.upload([big, path.join(FIXTURES, "png-named.pdf"), path.join(FIXTURES, "notes.txt")]);
    await expect(workspace.fileRow("oversized.txt").getByTestId("file-error")).toBeVisible({ timeout: 60_000 });
    await expect(workspace.fileRow("png-named.pdf").getByTestId("file-error")).toBeVisible({ timeout: 60_000 });
    await expect(workspace.fileStatus("notes.txt")).toHaveAttribute("data-status", /queued|parsing|chunking|embedding|indexing|success/, { timeout: 60_000 });
  });

  test("delete a file: it leaves the list and new answers, while past answers keep their references", async ({ workspace }) => {
    await workspace.goto();
    await workspace.createKb(uniqueName("删除库"));
    await workspace.upload([path.join(FIXTURES, "notes.txt"), path.join(FIXTURES, "guide.md")]);
    await expect(workspace.fileStatus("notes.txt")).toHaveAttribute("data-status", "success", { timeout: 120_000 });
    await expect(workspace.fileStatus("guide.md")).toHaveAttribute("data-status", "success", { timeout: 120_000 });
    await workspace.assistant.waitForStatus("ready", 30_000);

    await workspace.assistant.ask("扫描版 PDF 没有文字层怎么办");
    // A new KB starts a new conversation: its first and second answers are stable by position.
    const answers = workspace.page.getByTestId("message-assistant");
    const before = answers.nth(0);
    await expect(before).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    await expect(workspace.assistant.referenceCards(before).first()).toContainText("notes.txt");

    await workspace.deleteFile("notes.txt");
    await expect(workspace.fileRow("notes.txt")).toHaveCount(0);
    await expect(workspace.fileRows).toHaveCount(1);

    await workspace.assistant.ask("扫描版 PDF 没有文字层怎么办");
    const after = answers.nth(1);
    await expect(after).toHaveAttribute("data-phase", /done|error/, { timeout: 30_000 });
    await expect(workspace.assistant.referenceCards(after).filter({ hasText: "notes.txt" })).toHaveCount(0);
    // The earlier answer still shows what it was based on.
    await expect(workspace.assistant.referenceCards(before).first()).toContainText("notes.txt");
  });

  test("markup in a file name and content is shown as text, no script runs", async ({ workspace, page }) => {
    let dialogs = 0;
    page.on("dialog", (d) => {
      dialogs++;
      void d.dismiss();
    });
    await workspace.goto();
    await workspace.createKb(uniqueName("XSS库"));
    const payload = '<img src=x onerror="window.__xss=1;alert(1)">';
    await workspace.dropFiles([{ name: `${payload}.txt`, mimeType: "text/plain", buffer: Buffer.from(`安全测试段落。${payload} 这是一段关于防火墙策略配置的说明文字。`) }]);
    const row = workspace.fileRows.filter({ hasText: "onerror" }).first();
    await expect(row).toBeVisible();
    await expect(row.getByTestId("file-status")).toHaveAttribute("data-status", "success", { timeout: 120_000 });
    await workspace.assistant.waitForStatus("ready", 30_000);
    await workspace.assistant.ask("防火墙策略配置");
    await expect(workspace.assistant.lastAnswer()).toHaveAttribute("data-phase", /done|error/, { timeout: 30_000 });
    await expect(page.locator('img[src="x"]')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(dialogs).toBe(0);
  });
});
