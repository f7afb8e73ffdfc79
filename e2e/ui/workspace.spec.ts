import { expect, test, uniqueName } from "../pages/fixtures";

// Local mode (:3100): everyone is signed in; a sample KB is seeded at first start.
test.describe("workspace in local mode", () => {
  test("lands signed in and sees the sample KB become ready", async ({ workspace }) => {
    test.setTimeout(240_000);
    await workspace.goto();
    await expect(workspace.kbItem("示例知识库").first()).toBeVisible();
    await workspace.selectKb("示例知识库");
    await expect(workspace.fileRows.first()).toBeVisible();
    // Ingestion of the sample runs in the background after the first start.
    await workspace.assistant.waitForStatus("ready", 200_000);
    await expect(workspace.assistant.composer).toBeEnabled();
    await workspace.assistant.newConversation();
    await expect(workspace.assistant.exampleQuestions).toHaveCount(4);
  });

  test("creates, renames and deletes a KB", async ({ workspace, page }) => {
    const name = uniqueName("测试库");
    await workspace.goto();
    await workspace.createKb(name, "e2e");
    await expect(workspace.assistant.kbSelect).toHaveValue((await workspace.kbItem(name).getAttribute("data-kb-id"))!);
    await expect(page.getByTestId("files-empty")).toBeVisible();
    const renamed = `${name}-改`;
    await workspace.renameKb(renamed);
    await expect(workspace.kbItem(renamed)).toBeVisible();
    await workspace.deleteSelectedKb();
    await expect(workspace.kbItem(renamed)).toHaveCount(0);
  });

  test("an empty KB disables the composer with its reason and next step", async ({ workspace }) => {
    await workspace.goto();
    await workspace.createKb(uniqueName("空库"));
    await workspace.assistant.waitForStatus("empty", 15_000);
    await expect(workspace.assistant.composer).toBeDisabled();
    await expect(workspace.assistant.sendButton).toBeDisabled();
    await expect(workspace.assistant.statusNotice).toContainText("知识库中还没有文件");
    await expect(workspace.assistant.statusNotice.getByRole("button", { name: "去上传" })).toBeVisible();
  });

  test("the selected KB survives a reload (localStorage)", async ({ workspace, page }) => {
    const name = uniqueName("记住我");
    await workspace.goto();
    await workspace.createKb(name);
    const id = await workspace.kbItem(name).getAttribute("data-kb-id");
    expect(await page.evaluate(() => localStorage.getItem("knowledge_assistant:last_kb_id"))).toBe(id);
    await page.reload();
    await expect(workspace.assistant.kbSelect).toHaveValue(id!);
    await expect(workspace.kbTitle).toHaveText(name);
    // A stale id falls back to the first KB (on the bare address: a URL naming a KB wins).
    await page.evaluate(() => localStorage.setItem("knowledge_assistant:last_kb_id", "gone"));
    await page.goto("/");
    await expect(workspace.kbItems.first()).toHaveAttribute("aria-current", "true");
  });

  test("the assistant sidebar is a sheet on phones", async ({ workspace, page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await workspace.goto();
    await expect(workspace.assistant.root).toHaveCount(0);
    await page.getByTestId("assistant-open").click();
    await expect(page.getByTestId("assistant-sheet")).toBeVisible();
    await expect(workspace.assistant.kbSelect).toBeVisible();
    await page.getByTestId("assistant-sheet").getByRole("button", { name: "关闭助手" }).last().click();
    await expect(workspace.assistant.root).toHaveCount(0);
  });
});
