import { describe, expect, it } from "vitest";
import { detectDocumentLanguage, detectLanguage } from "../text/language";

describe("detectLanguage", () => {
  it("tells Chinese, English, Japanese and Korean apart", () => {
    expect(detectLanguage("Zephyr 的发布日期是哪天？")).toBe("zh");
    expect(detectLanguage("When does Zephyr launch?")).toBe("en");
    expect(detectLanguage("Which warehouse did shipment 123405 leave?")).toBe("en");
    expect(detectLanguage("ゼファーの発売日はいつですか？")).toBe("ja");
    expect(detectLanguage("제퍼 출시일은 언제입니까?")).toBe("ko");
    expect(detectLanguage("發布流程需要兩位審核人批准")).toBe("zh");
  });

  it("answers null for no text, digits only and Latin-script languages other than English", () => {
    expect(detectLanguage("")).toBeNull();
    expect(detectLanguage("123405 — 42")).toBeNull();
    expect(detectLanguage("Le lancement de la fusée est prévu pour le mois prochain selon le calendrier officiel du programme")).toBeNull();
  });

  it("takes a document's dominant language even with a few words of another", () => {
    expect(detectDocumentLanguage(["发布流程", "Zephyr 项目的发布需要两位审核人批准，发布日期定在三月。", "API 文档见附录。"])).toBe("zh");
    expect(detectDocumentLanguage(["# Zephyr", "Zephyr launches on 14 March. The release needs two approvals.", "见附录"])).toBe("en");
  });
});
