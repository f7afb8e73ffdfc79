// Generates the ingestion fixtures (e2e/fixtures/) and the sample documents seeded into the
// first-start sample KB (prisma/sample/). The outputs are committed; run again only to change
// them:  npx tsx scripts/make-fixtures.ts
//
// The Chinese PDF needs a CJK font with Latin glyphs too: WenQuanYi Zen Hei (apt-get install
// fonts-wqy-zenhei; its .ttc collection is unpacked to a single TrueType font here) or any .ttf
// given in FIXTURE_CJK_FONT. It is subset, so the files stay small.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import fontkit from "@pdf-lib/fontkit";
import {
  AlignmentType,
  Document,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from "docx";
import { PDFDocument, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { buildZip, DOCX_CONTENT_TYPES, DOCX_RELS, zipDeflated } from "../e2e/support/docx-zip";

const ROOT = path.resolve(import.meta.dirname, "..");
const FIXTURES = path.join(ROOT, "e2e", "fixtures");
const SAMPLE = path.join(ROOT, "prisma", "sample");

const FONT_CANDIDATES = [
  process.env.FIXTURE_CJK_FONT,
  "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
  "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
].filter((p): p is string => !!p);

/** The first font of a TrueType collection (.ttc) as a standalone .ttf (tables copied). */
function ttcFirstFont(ttc: Buffer): Buffer {
  if (ttc.toString("latin1", 0, 4) !== "ttcf") return ttc;
  const fontOffset = ttc.readUInt32BE(12);
  const numTables = ttc.readUInt16BE(fontOffset + 4);
  const headerLen = 12 + numTables * 16;
  const tables: Array<{ tag: Buffer; checksum: number; data: Buffer }> = [];
  for (let i = 0; i < numTables; i++) {
    const rec = fontOffset + 12 + i * 16;
    const off = ttc.readUInt32BE(rec + 8);
    const len = ttc.readUInt32BE(rec + 12);
    tables.push({ tag: ttc.subarray(rec, rec + 4), checksum: ttc.readUInt32BE(rec + 4), data: ttc.subarray(off, off + len) });
  }
  const header = Buffer.alloc(headerLen);
  ttc.copy(header, 0, fontOffset, fontOffset + 12);
  const bodies: Buffer[] = [];
  let pos = headerLen;
  tables.forEach((t, i) => {
    const rec = 12 + i * 16;
    t.tag.copy(header, rec);
    header.writeUInt32BE(t.checksum, rec + 4);
    header.writeUInt32BE(pos, rec + 8);
    header.writeUInt32BE(t.data.length, rec + 12);
    const padded = Buffer.alloc(Math.ceil(t.data.length / 4) * 4);
    t.data.copy(padded);
    bodies.push(padded);
    pos += padded.length;
  });
  return Buffer.concat([header, ...bodies]);
}

function write(dir: string, name: string, data: Uint8Array | string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), data);
  const size = typeof data === "string" ? Buffer.byteLength(data) : data.length;
  console.log(`${path.relative(ROOT, path.join(dir, name))}  ${size.toLocaleString("en-US")} bytes`);
}

// ---------------------------------------------------------------------------------------------
// Content: a Chinese product handbook (PDF), used both as a fixture and as a sample document.

export type Section = { h1?: string; h2?: string; paras?: string[]; newPage?: boolean };

export const HANDBOOK_TITLE = "云笺协同办公平台 产品手册";

export const HANDBOOK: Section[] = [
  {
    paras: [
      "版本 2.3 · 2025 年 6 月",
      "本手册面向云笺协同办公平台的管理员、实施顾问和最终用户，介绍产品定位、市场情况、部署方式、常见问题以及售后服务政策。手册中的数字均来自云笺公司内部统计或公开的行业报告，引用时请注明出处。",
      "如果您是第一次接触云笺，建议先阅读第一章了解产品的整体结构，再根据自己的角色查阅相应章节。管理员请重点阅读第三章“部署与安装”，最终用户可以直接跳到第四章“常见问题”。",
    ],
  },
  {
    newPage: true,
    h1: "第一章 产品概述",
    h2: "1.1 产品定位",
    paras: [
      "云笺是一套面向中小型企业的协同办公平台，把即时消息、在线文档、审批流程和知识库整合在同一个工作空间里。与传统的邮件加共享盘的工作方式相比，云笺强调“信息在哪里产生，就在哪里沉淀”，让每一次讨论和每一份文件都能被检索和复用。",
      "产品的核心用户是 20 到 500 人规模的团队，典型客户包括软件公司、设计工作室、连锁零售企业和职业教育机构。对于超过 500 人的组织，云笺提供私有化部署版本，支持与企业现有的统一身份认证系统对接。",
    ],
  },
  {
    h2: "1.2 核心功能",
    paras: [
      "即时消息：支持单聊、群聊和话题讨论，消息可以一键转为待办事项或文档评论。所有消息默认保存三年，管理员可以在后台调整保存期限。",
      "在线文档：支持多人同时编辑，提供表格、看板和思维导图三种视图。文档的每一次修改都会保留历史版本，最多可以回溯 180 天。",
      "审批流程：内置请假、报销、采购和合同四类审批模板，也可以用可视化编辑器自定义流程。审批节点支持会签、或签和条件分支。",
      "知识库：把文档按空间和目录组织起来，支持全文检索和智能问答。知识库助手会给出答案并标注引用来源，方便核对原文。",
    ],
  },
  {
    newPage: true,
    h1: "第二章 市场规模",
    h2: "2.1 国内市场",
    paras: [
      "根据行业研究机构的测算，2025 年国内协同办公市场规模约为 386 亿元，同比增长 17.5%。其中，面向中小企业的订阅制产品占比首次超过 40%，成为增长最快的细分市场。",
      "从地区分布看，华东地区贡献了约 38% 的收入，华南和华北分别占 24% 和 19%。中西部地区的增速最高，2025 年同比增长 26%，主要来自制造业和职业教育客户的数字化需求。",
      "云笺在国内中小企业协同办公市场的占有率约为 6.2%，付费企业客户超过 4.8 万家，年度经常性收入（ARR）达到 9.6 亿元。",
    ],
  },
  {
    h2: "2.2 海外市场",
    paras: [
      "云笺于 2024 年进入东南亚市场，目前在新加坡、马来西亚和越南设有销售团队。2025 年上半年，海外收入占公司总收入的 8%，主要客户是当地的华人企业和跨境电商团队。",
      "海外市场的主要竞争对手是国际协同办公厂商。云笺的差异化优势在于中文支持、本地化的审批模板以及更灵活的私有化部署方案。",
    ],
  },
  {
    newPage: true,
    h1: "第三章 部署与安装",
    h2: "3.1 系统要求",
    paras: [
      "私有化部署的最低配置为 4 核 CPU、16 GB 内存和 200 GB 固态硬盘，推荐配置为 8 核 CPU、32 GB 内存和 500 GB 固态硬盘。操作系统支持 Ubuntu 22.04、Debian 12 和 CentOS Stream 9。",
      "数据库使用 PostgreSQL 15 或更高版本，并需要安装 pgvector 扩展用于知识库的向量检索。文件存储可以使用本地磁盘，也可以使用兼容 S3 协议的对象存储。",
      "网络方面，服务器需要开放 443 端口供浏览器访问；如果启用了移动端推送，还需要允许服务器访问推送网关。所有内部服务之间的通信都使用 TLS 加密。",
    ],
  },
  {
    h2: "3.2 安装步骤",
    paras: [
      "第一步，下载安装包并校验 SHA-256 摘要，确认安装包没有被篡改。第二步，解压安装包，复制配置模板 config.example.yaml 为 config.yaml，填写数据库连接串、对象存储地址和管理员邮箱。",
      "第三步，运行安装脚本 install.sh，脚本会检查系统依赖、初始化数据库结构并创建第一个管理员账号。整个过程通常需要 10 到 15 分钟。第四步，在浏览器中打开管理后台，导入组织架构，完成企业信息设置。",
      "安装完成后，建议立即配置每日自动备份。云笺的备份工具会同时备份数据库和文件存储，默认保留最近 14 天的备份。恢复时请先停止应用服务，再运行 restore.sh 并指定备份日期。",
      "升级时请先阅读版本说明，确认是否包含数据库结构变更。跨大版本升级（例如从 1.x 升级到 2.x）必须先升级到上一个大版本的最新小版本，再升级到目标版本。升级前务必完成一次完整备份。",
      "如果安装脚本报告“pgvector 扩展不可用”，说明数据库服务器没有安装向量扩展。请联系数据库管理员安装 pgvector 0.5 或更高版本后重新运行脚本；在此之前，知识库只能使用关键词检索。",
      "对于无法访问互联网的内网环境，云笺提供离线安装包，其中包含全部依赖和模型文件。离线安装包体积约为 6 GB，请提前准备足够的磁盘空间。",
      "集群部署时，应用节点是无状态的，可以按需水平扩展；数据库和对象存储需要单独规划高可用方案。我们建议至少部署两个应用节点，并在前面放置负载均衡器，开启健康检查。",
      "部署完成后，请使用管理后台的“系统自检”功能检查各项服务的状态。自检会验证数据库连接、对象存储读写、邮件发送和向量检索是否正常，并生成一份可以下载的诊断报告。",
    ],
  },
  {
    h2: "3.3 数据迁移",
    paras: [
      "从其他协同办公产品迁移到云笺时，可以使用管理后台的“数据迁移”向导。向导支持导入组织架构、成员账号、群组、历史文档和审批记录，并会在导入前生成一份差异报告供管理员确认。",
      "文档迁移会保留原有的目录结构和修改历史；附件会逐个校验摘要，校验失败的文件会列在迁移报告中，不会静默丢弃。对于超过 10 万份文档的大型迁移，建议在业务低峰期分批进行，每批不超过 2 万份。",
      "迁移完成后，知识库会自动对新导入的文档进行解析和索引。索引期间，知识库助手只能检索已经完成解析的文档；管理员可以在“文件列表”中查看每个文件的解析进度和失败原因。",
      "审批记录迁移只导入已经结束的流程；仍在进行中的审批需要在原系统中处理完毕，或者在云笺中重新发起。迁移工具不会导入原系统中的密码，所有成员首次登录时需要重新设置密码或通过统一身份认证登录。",
    ],
  },
  {
    newPage: true,
    h1: "第四章 常见问题",
    paras: [
      "问：忘记登录密码怎么办？答：在登录页点击“忘记密码”，系统会向注册邮箱发送重置链接，链接 30 分钟内有效。如果企业启用了统一身份认证，请联系企业管理员重置。",
      "问：上传文件的大小有限制吗？答：单个文件最大 50 MB，知识库中单个空间的总容量默认为 20 GB，管理员可以在后台调整。",
      "问：知识库助手为什么说“没有找到相关内容”？答：助手只根据知识库中已解析完成的文件回答问题。请确认相关文件已经上传并显示“解析成功”，或者换一种问法再试。",
      "问：可以导出聊天记录吗？答：管理员可以在“数据管理”页面按时间范围导出聊天记录，导出文件为加密的压缩包，解压密码会发送到管理员邮箱。",
    ],
  },
  {
    newPage: true,
    h1: "第五章 服务与支持",
    h2: "5.1 售后政策",
    paras: [
      "标准版客户享受工作日 9:00 至 18:00 的在线支持，响应时间不超过 4 小时；企业版客户享受 7×24 小时支持，严重故障的响应时间不超过 30 分钟。",
      "购买后 30 天内，如果产品功能与合同约定不符，客户可以申请全额退款。私有化部署版本提供一年免费升级服务，之后按年收取维护费，费用为软件许可费的 18%。",
    ],
  },
  {
    h2: "5.2 联系方式",
    paras: [
      "客服热线：400-820-1234（工作日 9:00–18:00）。技术支持邮箱：support@yunjian.example。紧急故障请拨打企业版专属热线，号码见您的服务合同。",
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// PDF layout with pdf-lib: wraps CJK per character and Latin per word.

interface PdfLayoutOptions {
  title: string;
  footer: (page: number) => string;
  font: PDFFont;
  bodySize?: number;
}

function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const tokens = text.match(/[A-Za-z0-9@.:/_\-–+%()（）]+|\s+|./gu) ?? [];
  const lines: string[] = [];
  let line = "";
  for (const t of tokens) {
    const candidate = line + t;
    if (font.widthOfTextAtSize(candidate, size) <= width || !line) {
      line = candidate;
    } else {
      lines.push(line.trimEnd());
      line = t.trimStart();
    }
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

export async function layoutPdf(sections: Section[], opts: PdfLayoutOptions, doc: PDFDocument): Promise<void> {
  const { font } = opts;
  const body = opts.bodySize ?? 11;
  const margin = 64;
  const [W, H] = [595.28, 841.89];
  const width = W - margin * 2;
  let page: PDFPage = doc.addPage([W, H]);
  let y = H - margin;
  let pageNo = 1;
  const footer = (p: PDFPage, n: number) => {
    const t = opts.footer(n);
    p.drawText(t, { x: (W - font.widthOfTextAtSize(t, 9)) / 2, y: 36, size: 9, font, color: rgb(0.4, 0.4, 0.4) });
  };
  const newPage = () => {
    footer(page, pageNo);
    page = doc.addPage([W, H]);
    pageNo++;
    y = H - margin;
  };
  const line = (text: string, size: number, gapBefore = 0) => {
    if (y - gapBefore - size < margin) newPage();
    else y -= gapBefore;
    y -= size;
    page.drawText(text, { x: margin, y, size, font, color: rgb(0.1, 0.1, 0.1) });
    y -= size * 0.45;
  };
  // Title on the first page.
  line(opts.title, 24);
  y -= 18;
  for (const s of sections) {
    if (s.newPage) newPage();
    if (s.h1) line(s.h1, 20, 14);
    if (s.h2) line(s.h2, 15, 10);
    for (const p of s.paras ?? []) {
      const lines = wrap(p, font, body, width);
      lines.forEach((l, i) => line(l, body, i === 0 ? body * 0.9 : 0));
    }
  }
  footer(page, pageNo);
}

export async function cjkFont(doc: PDFDocument): Promise<PDFFont> {
  const fontPath = FONT_CANDIDATES.find((p) => existsSync(p));
  if (!fontPath) throw new Error(`No CJK font found; install fonts-wqy-zenhei or set FIXTURE_CJK_FONT. Tried: ${FONT_CANDIDATES.join(", ")}`);
  doc.registerFontkit(fontkit);
  return doc.embedFont(ttcFirstFont(readFileSync(fontPath)), { subset: true });
}

export function fixedMetadata(doc: PDFDocument, title: string): void {
  const when = new Date("2025-06-01T00:00:00Z");
  doc.setTitle(title);
  doc.setProducer("knowledge-assistant make-fixtures");
  doc.setCreator("knowledge-assistant make-fixtures");
  doc.setCreationDate(when);
  doc.setModificationDate(when);
}

export async function makeHandbookPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  fixedMetadata(doc, HANDBOOK_TITLE);
  const font = await cjkFont(doc);
  await layoutPdf(HANDBOOK, { title: HANDBOOK_TITLE, footer: (n) => `云笺产品手册 · 第 ${n} 页`, font }, doc);
  return doc.save({ useObjectStreams: false });
}

// ---------------------------------------------------------------------------------------------
// An image-only ("scanned") PDF: one page with an embedded grayscale PNG and no text.

function crc32(buf: Uint8Array): number {
  return zlib.crc32(buf) >>> 0;
}

function pngGray(width: number, height: number, pixel: (x: number, y: number) => number): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0;
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = pixel(x, y);
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function scanLikePng(): Buffer {
  // Horizontal "text lines" of dark noise on a light page, like a low-resolution scan.
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return pngGray(240, 320, (x, y) => {
    const inLine = y > 30 && y < 290 && y % 14 < 7 && x > 20 && x < 220;
    return inLine && rnd() < 0.55 ? 40 : 235;
  });
}

async function makeScannedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  fixedMetadata(doc, "scanned");
  const img = await doc.embedPng(scanLikePng());
  for (let i = 0; i < 2; i++) {
    const page = doc.addPage([595.28, 841.89]);
    page.drawImage(img, { x: 60, y: 80, width: 475, height: 680 });
  }
  return doc.save({ useObjectStreams: false });
}

// ---------------------------------------------------------------------------------------------
// An encrypted PDF (standard security handler, RC4 40-bit, revision 2) with a user password,
// written by hand: pdf-lib cannot encrypt. Opening it without the password fails
// (pdf.js PasswordException); with the password "secret" it shows one line of text.

const PAD = Buffer.from("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A", "hex");

function rc4(key: Buffer, data: Buffer): Buffer {
  // Node's OpenSSL 3 may not offer rc4 outside the legacy provider; a plain implementation.
  const s = Array.from({ length: 256 }, (_, i) => i);
  let j = 0;
  for (let i = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  let i = 0;
  j = 0;
  for (let k = 0; k < data.length; k++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

const md5 = (...parts: Buffer[]) => createHash("md5").update(Buffer.concat(parts)).digest();
const padPwd = (p: string) => Buffer.concat([Buffer.from(p, "latin1"), PAD]).subarray(0, 32);

function makeEncryptedPdf(): Buffer {
  const userPwd = "secret";
  const ownerPwd = "owner-secret";
  const id = md5(Buffer.from("knowledge-assistant encrypted fixture"));
  const P = -44; // print allowed, nothing else
  const oKey = md5(padPwd(ownerPwd)).subarray(0, 5);
  const O = rc4(oKey, padPwd(userPwd));
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(P);
  const fileKey = md5(padPwd(userPwd), O, pBytes, id).subarray(0, 5);
  const U = rc4(fileKey, PAD);
  const objKey = (num: number, gen: number) =>
    md5(fileKey, Buffer.from([num & 255, (num >> 8) & 255, (num >> 16) & 255, gen & 255, (gen >> 8) & 255])).subarray(0, 10);

  const content = Buffer.from("BT /F1 18 Tf 72 720 Td (Confidential: quarterly revenue was 12.5 million.) Tj ET", "latin1");
  const enc = rc4(objKey(4, 0), content);
  const objects: Buffer[] = [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
    Buffer.from("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"),
    Buffer.concat([Buffer.from(`<< /Length ${enc.length} >>\nstream\n`), enc, Buffer.from("\nendstream")]),
    Buffer.from("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
    Buffer.from(`<< /Filter /Standard /V 1 /R 2 /O <${O.toString("hex")}> /U <${U.toString("hex")}> /P ${P} >>`),
  ];
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const offsets: number[] = [];
  let pos = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(pos);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
    parts.push(chunk);
    pos += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n", ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`)].join("");
  const hex = id.toString("hex");
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 6 0 R /ID [<${hex}> <${hex}>] >>\nstartxref\n${pos}\n%%EOF\n`));
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------
// DOCX with headings, a list and a table (docx package).

export async function makeReportDocx(): Promise<Buffer> {
  const p = (text: string) => new Paragraph({ children: [new TextRun(text)] });
  const cell = (text: string, bold = false) =>
    new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold })] })], width: { size: 2400, type: WidthType.DXA } });
  const doc = new Document({
    creator: "knowledge-assistant",
    title: "2025 年第二季度运营报告",
    sections: [
      {
        children: [
          new Paragraph({ text: "2025 年第二季度运营报告", heading: HeadingLevel.HEADING_1, alignment: AlignmentType.CENTER }),
          p("本报告汇总云笺协同办公平台 2025 年第二季度（4 月至 6 月）的客户、收入和服务数据，供管理层季度复盘使用。"),
          new Paragraph({ text: "一、经营概况", heading: HeadingLevel.HEADING_2 }),
          p("第二季度新增付费企业客户 3,150 家，季度末付费企业客户总数达到 48,600 家。季度收入 2.61 亿元，环比增长 6.8%，同比增长 21.4%。"),
          p("客户续费率保持稳定，按金额计算的净收入留存率（NRR）为 112%，其中企业版客户的 NRR 达到 124%。"),
          new Paragraph({ text: "二、分产品收入", heading: HeadingLevel.HEADING_2 }),
          p("各产品线的季度收入如下表所示（单位：万元）。"),
          new Table({
            rows: [
              new TableRow({ children: [cell("产品线", true), cell("第一季度", true), cell("第二季度", true), cell("环比", true)] }),
              new TableRow({ children: [cell("标准版订阅"), cell("12,480"), cell("13,020"), cell("+4.3%")] }),
              new TableRow({ children: [cell("企业版订阅"), cell("8,960"), cell("9,870"), cell("+10.2%")] }),
              new TableRow({ children: [cell("私有化部署"), cell("2,310"), cell("2,450"), cell("+6.1%")] }),
              new TableRow({ children: [cell("增值服务"), cell("690"), cell("760"), cell("+10.1%")] }),
            ],
          }),
          new Paragraph({ text: "三、服务质量", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: "3.1 响应时效", heading: HeadingLevel.HEADING_3 }),
          p("本季度共受理工单 18,420 张，平均首次响应时间 21 分钟，严重故障平均恢复时间 47 分钟，均优于服务协议的承诺。"),
          new Paragraph({ text: "3.2 客户满意度", heading: HeadingLevel.HEADING_3 }),
          p("季度客户满意度调查共回收问卷 2,306 份，综合满意度 4.6 分（满分 5 分）。客户提出的主要改进建议包括："),
          new Paragraph({ text: "移动端审批页面加载速度偏慢", bullet: { level: 0 } }),
          new Paragraph({ text: "知识库检索结果希望显示页码", bullet: { level: 0 } }),
          new Paragraph({ text: "报表导出希望支持 Excel 格式", bullet: { level: 0 } }),
          new Paragraph({ text: "四、下季度计划", heading: HeadingLevel.HEADING_2 }),
          p("第三季度将重点推进知识库助手的引用定位功能，目标是让每一条回答都能跳转到原文所在页面；同时启动马来西亚数据中心的建设，预计 2025 年 11 月上线。"),
          p("Q3 targets: 5,000 new paying customers, quarterly revenue of RMB 280 million, and a first-response time under 20 minutes."),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

// ---------------------------------------------------------------------------------------------
// DOCX bombs: a zip written by hand (e2e/support/docx-zip.ts), stored sizes as given.

/** document.xml = a valid start, then `spaces` bytes of spaces, then a valid end (streamed). */
async function bombDocumentXml(spaces: number): Promise<{ data: Buffer; crc: number; size: number }> {
  const head = Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>bomb</w:t></w:r></w:p>`);
  const tail = Buffer.from("</w:body></w:document>");
  const block = Buffer.alloc(1024 * 1024, 0x20);
  let crc = 0;
  async function* source() {
    yield head;
    crc = zlib.crc32(head, crc);
    for (let left = spaces; left > 0; left -= block.length) {
      const b = left >= block.length ? block : block.subarray(0, left);
      crc = zlib.crc32(b, crc);
      yield b;
    }
    crc = zlib.crc32(tail, crc);
    yield tail;
  }
  const out: Buffer[] = [];
  await pipeline(Readable.from(source()), zlib.createDeflateRaw({ level: 9 }), async function* (chunks: AsyncIterable<Buffer>) {
    for await (const c of chunks) out.push(c);
  });
  return { data: Buffer.concat(out), crc: crc >>> 0, size: head.length + spaces + tail.length };
}

async function makeDocxBomb(spaces: number, declaredSize?: number): Promise<Buffer> {
  const doc = await bombDocumentXml(spaces);
  return buildZip([
    zipDeflated("[Content_Types].xml", Buffer.from(DOCX_CONTENT_TYPES)),
    zipDeflated("_rels/.rels", Buffer.from(DOCX_RELS)),
    { name: "word/document.xml", data: doc.data, crc: doc.crc, uncompressedSize: doc.size, declaredUncompressedSize: declaredSize },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Text fixtures.

export const GUIDE_MD = `---
title: Knowledge assistant quick guide
---

# Knowledge Assistant Guide

This guide explains how to upload documents, how parsing works and how to ask good questions.

## Uploading documents

You can upload PDF, DOCX, Markdown, plain text and HTML files. Each file may be up to 50 MB.
Files are parsed in the background; the file list shows the progress of each one.

- Drag files onto the upload area, or click **Upload**.
- Several files can be uploaded at once.
- A file with the same content as an existing one is reported as a duplicate.

### Supported formats

| Format | Page numbers | Headings |
| --- | --- | --- |
| PDF | yes | from font size |
| DOCX | no | from heading styles |
| Markdown | no | from # headings |

Asking questions
----------------

Type a question of up to 200 characters. The assistant searches the knowledge base and answers
with numbered references. Click a reference card to open the source at the right page.

Good questions name the thing you are looking for. For example, ask "What is the refund period?"
rather than "Tell me about policies".

## Troubleshooting

If a PDF fails with "scanned PDF / no text layer", the file contains only images. Run OCR on it
first, then upload the result.

\`\`\`bash
# Check whether a PDF has a text layer
pdftotext report.pdf - | head
\`\`\`

The retention period for deleted files is 30 days; after that they cannot be restored.
`;

export const PAGE_HTML = `<!DOCTYPE html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<title>云笺 隐私政策</title>
<style>body { font-family: sans-serif; } .hidden { display: none; }</style>
<script>window.stolen = document.cookie; alert("xss");</script>
</head>
<body>
<nav><a href="/">首页</a> · <a href="/privacy">隐私</a></nav>
<h1>隐私政策</h1>
<p>本政策说明云笺如何收集、使用和保护您的个人信息。我们只收集提供服务所必需的信息。</p>
<h2>一、我们收集的信息</h2>
<p>注册账号时，我们会收集您的姓名、工作邮箱和手机号码。使用过程中，我们会记录登录时间、IP 地址和设备类型，用于安全审计。</p>
<ul>
  <li>账号信息：姓名、邮箱、手机号</li>
  <li>日志信息：登录时间、IP 地址、设备类型</li>
</ul>
<h2>二、信息的保存期限</h2>
<p>账号注销后，我们会在 <strong>15 个工作日</strong> 内删除您的个人信息，法律法规另有规定的除外。安全审计日志保存 180 天。</p>
<noscript><p>请启用 JavaScript。</p></noscript>
<template><p>模板内容不应出现</p></template>
<h2>三、联系我们</h2>
<table>
  <tr><th>事项</th><th>联系方式</th></tr>
  <tr><td>隐私问题</td><td>privacy@yunjian.example</td></tr>
  <tr><td>客服热线</td><td>400-820-1234</td></tr>
</table>
<script type="text/javascript">console.log("second script");</script>
</body>
</html>
`;

export const NOTES_TXT = `会议纪要：知识库项目周会

时间：2025 年 6 月 12 日下午 3 点
参会人：产品、研发、测试各一名代表

一、进度回顾
解析模块已经支持 PDF、DOCX、Markdown、HTML 和纯文本五种格式。PDF 会按页提取文字并保留页码，DOCX 会保留标题层级和表格。

二、存在问题
扫描版 PDF 没有文字层，目前只能提示用户先做 OCR。超大文件的解析时间偏长，需要增加时间预算和页数上限。

三、下周计划
完成上传限额、重复文件检测和解析进度推送，并补充恶意文件的测试用例。

Action items: finish the upload quota checks by Friday; the test team owns the hostile-file suite.
`;

// ---------------------------------------------------------------------------------------------

async function main() {
  const handbook = await makeHandbookPdf();
  write(FIXTURES, "zh-handbook.pdf", handbook);
  // Truncated: the first 45% of the handbook (no xref, no trailer, no %%EOF).
  write(FIXTURES, "truncated.pdf", handbook.subarray(0, Math.floor(handbook.length * 0.45)));
  write(FIXTURES, "scanned.pdf", await makeScannedPdf());
  write(FIXTURES, "encrypted.pdf", makeEncryptedPdf());
  write(FIXTURES, "png-named.pdf", scanLikePng());
  write(FIXTURES, "empty.txt", "");
  const report = await makeReportDocx();
  write(FIXTURES, "report.docx", report);
  // Honest bomb: document.xml declares and contains 300 MB of spaces (~300 KB compressed).
  write(FIXTURES, "bomb.docx", await makeDocxBomb(300 * 1024 * 1024));
  // Lying bomb: the headers declare 20 KB, the entry inflates to 64 MB.
  write(FIXTURES, "bomb-lying-size.docx", await makeDocxBomb(64 * 1024 * 1024, 20 * 1024));
  write(FIXTURES, "guide.md", GUIDE_MD);
  write(FIXTURES, "privacy.html", PAGE_HTML);
  write(FIXTURES, "notes.txt", NOTES_TXT);

  // The sample KB (prisma/sample): the handbook and the report, plus the hand-written guide
  // prisma/sample/admin-guide.md (written by hand, not generated).
  write(SAMPLE, "云笺产品手册.pdf", handbook);
  write(SAMPLE, "2025Q2运营报告.docx", report);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
