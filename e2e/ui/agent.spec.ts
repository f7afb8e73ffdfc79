import { FAKE_MODEL_URL, MODEL_URL, expect, test } from "../pages/fixtures";
import { ApiTokensDialog } from "../pages/api-tokens-dialog";
import { WorkspacePage } from "../pages/workspace-page";

// Agent answer mode against the local test model (which answers OpenAI tool calls by searching,
// reading around the best hit, then answering), and the API token dialog an MCP user needs.
const SAMPLE = "示例知识库";
const QUESTION = "购买后多少天内可以申请全额退款？";

test.describe("agent mode", () => {
  test.setTimeout(240_000);

  test("an agent answer shows its steps live, cites its references and survives a reload", async ({ page }) => {
    const ws = new WorkspacePage(page);
    await page.goto(`${MODEL_URL}/`);
    await ws.selectKb(SAMPLE);
    const a = ws.assistant;
    await a.waitForStatus("ready", 200_000);
    await a.newConversation();
    await a.agentToggle.check();
    await a.ask(QUESTION);
    const answer = a.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done", { timeout: 60_000 });
    const steps = a.agentSteps(answer);
    await expect(steps).toHaveCount(2);
    await expect(steps.nth(0)).toHaveText(/搜索 “购买后多少天内可以申请全额退款？”：\d+ 条/);
    await expect(steps.nth(1)).toHaveText(/读取文档 第 \d+–\d+ 段/);
    await expect(steps.nth(0)).toHaveAttribute("data-status", "ok");
    await expect(a.citedReferenceCards(answer)).toHaveCount(1);
    await expect(a.citation(1, answer)).toBeVisible();

    await page.reload();
    await a.waitForStatus("ready");
    const restored = a.lastAnswer();
    await expect(a.agentSteps(restored)).toHaveCount(2);
    await expect(a.agentSteps(restored).nth(1)).toHaveText(/读取文档 第 \d+–\d+ 段/);
    await expect(a.citedReferenceCards(restored)).toHaveCount(1);
  });

  test("stop ends an agent answer mid-stream; its steps and partial text stay after a reload", async ({ page, request }) => {
    // One tool round, then an answer streamed slowly enough to stop in the middle.
    await request.post(`${FAKE_MODEL_URL}/__fake/script`, { data: { kind: "tool_calls", calls: [{ name: "grep_chunks", arguments: { keywords: ["退款"] } }] } });
    await request.post(`${FAKE_MODEL_URL}/__fake/script`, { data: { kind: "stream", tokens: Array.from({ length: 300 }, (_, i) => `第${i}句。`), tokenMs: 60 } });
    try {
      const ws = new WorkspacePage(page);
      await page.goto(`${MODEL_URL}/`);
      await ws.selectKb(SAMPLE);
      const a = ws.assistant;
      await a.waitForStatus("ready", 200_000);
      await a.newConversation();
      await a.agentToggle.check();
      await a.ask("退款的规定是什么？");
      const answer = a.lastAnswer();
      await expect(answer.getByTestId("answer-content")).toContainText("第3句", { timeout: 60_000 });
      await expect(a.agentSteps(answer)).toHaveCount(1);
      await a.stopButton.click();
      await expect(answer.getByTestId("stopped-indicator")).toBeVisible();
      await expect(a.sendButton).toBeVisible();

      await page.reload();
      await a.waitForStatus("ready");
      const restored = a.lastAnswer();
      await expect(restored.getByTestId("stopped-indicator")).toBeVisible();
      await expect(a.agentSteps(restored)).toHaveCount(1);
      await expect(a.agentSteps(restored).nth(0)).toHaveAttribute("data-status", "ok");
      await expect(restored.getByTestId("answer-content")).toContainText("第3句");
      await expect(restored.getByTestId("answer-content")).not.toContainText("第299句");
    } finally {
      await request.post(`${FAKE_MODEL_URL}/__fake/reset`);
    }
  });

  test("an API token made in the dialog (read-only, one KB) lists the MCP tools", async ({ page }) => {
    const ws = new WorkspacePage(page);
    await page.goto("/");
    await expect(ws.userMenu).toBeVisible();
    const dialog = new ApiTokensDialog(page);
    await dialog.open();
    await dialog.name.fill("mcp-agent");
    await dialog.scope.selectOption("read");
    await dialog.kbCheckbox(SAMPLE).check();
    await dialog.create.click();
    await expect(dialog.secret).toHaveText(/^ka_/);
    await expect(dialog.rows.filter({ hasText: "mcp-agent" })).toContainText(SAMPLE);
    const token = (await dialog.secret.textContent())!.trim();
    const res = await page.request.post("/v1/mcp", {
      headers: { authorization: `Bearer ${token}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
      data: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    expect(res.status()).toBe(200);
    expect(JSON.stringify(await res.json())).toContain("grep_chunks");
    // A read-only token changes nothing.
    const write = await page.request.post("/v1/knowledges", { headers: { authorization: `Bearer ${token}` }, data: { name: "nope" } });
    expect((await write.json()).code).toBe("FORBIDDEN");
  });
});
