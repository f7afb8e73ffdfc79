import { expect, test, uniqueName, PASSWORD_URL } from "../pages/fixtures";
import { AuthPage } from "../pages/auth-page";
import { WorkspacePage } from "../pages/workspace-page";

// Password mode (:3101): sign-up, sign-in, sign-out, isolation and viewer permissions.
test.use({ baseURL: PASSWORD_URL });

const newUser = (tag: string) => ({ name: `用户${tag}`, email: `${uniqueName(tag).toLowerCase()}@example.com`, password: "correct-horse-9" });

test.describe("password mode", () => {
  test("unauthenticated visitors are sent to sign in", async ({ page }) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/sign-in/);
    await expect(page.getByTestId("auth-submit")).toBeVisible();
  });

  test("sign up → create KB → sign out → sign in again", async ({ auth, workspace }) => {
    const user = newUser("a");
    await auth.signUp(user);
    await expect(workspace.userMenu).toBeVisible();
    const kb = uniqueName("我的库");
    await workspace.createKb(kb);
    await workspace.signOut();
    await auth.signIn(user);
    await expect(workspace.kbItem(kb)).toBeVisible();
  });

  test("wrong password shows an error and stays on the page", async ({ auth, page }) => {
    const user = newUser("w");
    await auth.signUp(user);
    await new WorkspacePage(page).signOut();
    await auth.email.fill(user.email);
    await auth.password.fill("not-the-password");
    await auth.submit.click();
    await expect(auth.error).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("sign-up of a taken e-mail with another password signs nobody in and says why, without confirming the account", async ({ auth, page }) => {
    const user = newUser("taken");
    await auth.signUp(user);
    await new WorkspacePage(page).signOut();
    await auth.submitSignUp({ ...user, password: "someone-elses-9" });
    await expect(auth.error).toContainText(/如果该邮箱此前已注册|If this e-mail already had an account/);
    await expect(page).toHaveURL(/\/sign-up/);
    // The real holder still signs in with their own password.
    await auth.signIn(user);
  });

  test("two users cannot see each other's KBs", async ({ browser }) => {
    const ctxA = await browser.newContext({ baseURL: PASSWORD_URL });
    const ctxB = await browser.newContext({ baseURL: PASSWORD_URL });
    const a = await ctxA.newPage();
    const b = await ctxB.newPage();
    await new AuthPage(a).signUp(newUser("iso-a"));
    await new AuthPage(b).signUp(newUser("iso-b"));
    const wa = new WorkspacePage(a);
    const wb = new WorkspacePage(b);
    const kbA = uniqueName("A的库");
    const kbB = uniqueName("B的库");
    await wa.createKb(kbA);
    await wb.createKb(kbB);
    await b.reload();
    await expect(wb.kbItem(kbB)).toBeVisible();
    await expect(wb.kbItem(kbA)).toHaveCount(0);
    await a.reload();
    await expect(wa.kbItem(kbA)).toBeVisible();
    await expect(wa.kbItem(kbB)).toHaveCount(0);
    await ctxA.close();
    await ctxB.close();
  });

  test("a viewer can ask but cannot upload or delete", async ({ browser }) => {
    const ctxO = await browser.newContext({ baseURL: PASSWORD_URL });
    const ctxV = await browser.newContext({ baseURL: PASSWORD_URL });
    const owner = await ctxO.newPage();
    const viewerPage = await ctxV.newPage();
    const viewerUser = newUser("viewer");
    await new AuthPage(viewerPage).signUp(viewerUser);
    await new AuthPage(owner).signUp(newUser("owner"));
    const wo = new WorkspacePage(owner);
    const kb = uniqueName("共享库");
    await wo.createKb(kb);
    await owner.getByTestId("kb-members").click();
    const dialog = owner.getByTestId("members-dialog");
    await dialog.getByLabel(/成员邮箱|Member e-mail/).fill(viewerUser.email);
    await dialog.getByRole("button", { name: /添加成员|Add member/ }).click();
    // An invitation, shown the same whether or not the e-mail has an account.
    await expect(dialog.getByTestId("member-notice")).toContainText(viewerUser.email);
    await expect(dialog.getByTestId("invitation-list")).toContainText(viewerUser.email);
    const wv = new WorkspacePage(viewerPage);
    await viewerPage.reload();
    await wv.selectKb(kb);
    await expect(viewerPage.getByTestId("viewer-notice")).toBeVisible();
    await expect(wv.uploadInput).toHaveCount(0);
    await expect(viewerPage.getByTestId("kb-delete")).toHaveCount(0);
    await ctxO.close();
    await ctxV.close();
  });
});
