// The offline entity extractor (no model): jieba part-of-speech tags for Chinese plus rules, and
// proper-noun phrases for English. Pure, like the tokenizer, so the benchmark runs it as it runs
// in ingestion. Each rule can be turned off (the benchmark measures what each one adds).
import { createRequire } from "node:module";
import type { Jieba as JiebaType, TaggedWord } from "@node-rs/jieba";
import { displayName, isUsefulName } from "./normalize";

export type EntityType = "person" | "organization" | "location" | "work" | "product" | "position" | "other";

export interface EntitySpan {
  start: number;
  end: number;
  type: EntityType;
  text: string;
  /**
   * A candidate, not yet an entity: a word jieba does not know and no rule types, a lone
   * capitalized English word, a quoted phrase. The graph builder keeps it only when its name
   * occurs at least twice in the file (a product's name does; a stray word seldom does).
   */
  weak?: boolean;
}

export interface SentenceSpan {
  start: number;
  end: number;
}

export interface ExtractRules {
  /** 《…》 titles become works. */
  bookTitles: boolean;
  /** Words jieba's HMM found but its dictionary lacks (tag `x`), typed by surname, suffix and transliteration. */
  unknownWords: boolean;
  /** Runs of nouns ending in an organization suffix (…公司, …银行, …委员会) become one organization. */
  orgSuffix: boolean;
  /** Runs of places and place suffixes (北京市 东城区 王府井大街 218 号) become one location. */
  locationRuns: boolean;
  /** Job titles and roles (记者, 总裁, 管理员): CLUENER labels them, and a handbook's roles are what its rules are about. */
  positions: boolean;
  /** Latin-script names inside Chinese text (DOTA, Riddick) and English proper-noun phrases. */
  latinNames: boolean;
  /** Product and project names followed by a version (云笺 3.2, Yunjian v2) and quoted names. */
  productNames: boolean;
}

/** What ingestion uses (each rule's effect on the benchmark is in docs/bench-graph.md). */
export const DEFAULT_RULES: ExtractRules = {
  bookTitles: true,
  unknownWords: true,
  orgSuffix: true,
  locationRuns: true,
  positions: true,
  latinNames: true,
  productNames: true,
};

export const NO_RULES: ExtractRules = {
  bookTitles: false,
  unknownWords: false,
  orgSuffix: false,
  locationRuns: false,
  positions: false,
  latinNames: false,
  productNames: false,
};

const g = globalThis as unknown as { __kaJieba?: JiebaType };

/** The process-wide jieba (the same instance the tokenizer uses, on globalThis). */
function getJieba(): JiebaType {
  if (!g.__kaJieba) {
    const require = createRequire(import.meta.url);
    const { Jieba } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
    const { dict } = require("@node-rs/jieba/dict") as typeof import("@node-rs/jieba/dict");
    g.__kaJieba = Jieba.withDict(dict);
  }
  return g.__kaJieba;
}

const CJK_RE = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
const CJK_ONLY_RE = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/;

// Common surnames (the first ~120 by population plus frequent two-character ones).
const SURNAMES = new Set(
  "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝".split(""),
);
const COMPOUND_SURNAMES = ["欧阳", "司马", "诸葛", "上官", "东方", "皇甫", "慕容", "令狐", "司徒", "夏侯", "尉迟", "公孙", "长孙", "端木"];

// Characters typical of transliterated foreign names (沃尔科特, 约翰森, 丹尼斯).
const TRANSLIT = new Set("斯尔特克德科夫娜丽尼亚森顿伦罗洛拉维奇基诺托姆马卡里莱兰贝巴曼奥乌蒂艾迪利伊萨佩普塔布杰詹索瑞莫吉西格勒弗赫霍汉哈翰约翰".split(""));

const ORG_SUFFIXES = [
  "有限责任公司", "股份有限公司", "有限公司", "公司", "集团", "银行", "分行", "总行", "支行", "大学", "学院", "中学", "小学", "医院", "委员会",
  "常委会", "协会", "学会", "研究院", "研究所", "研究中心", "实验室", "基金会", "基金", "俱乐部", "电视台", "广播电台", "报社", "出版社", "杂志社",
  "政府", "法院", "检察院", "公安局", "公安厅", "局", "厅", "署", "部", "办", "委", "总队", "支队", "大队", "战队", "联盟", "联合会", "工作室",
  "事务所", "证券", "保险", "地产", "置业", "科技", "航空", "汽车", "传媒", "影业", "网络", "军团", "中心",
];
const ORG_SUFFIX_WORDS = new Set(ORG_SUFFIXES);
const LOC_SUFFIXES = ["省", "市", "县", "区", "镇", "乡", "村", "州", "路", "街", "大街", "大道", "巷", "号", "广场", "大厦", "公园", "机场", "车站", "港", "湾", "岛", "山", "河", "湖", "江", "桥", "古城", "景区", "博物馆", "美术馆", "图书馆", "球场", "体育馆"];
const LOC_SUFFIX_WORDS = new Set(LOC_SUFFIXES);

const POSITIONS = new Set([
  "记者", "总裁", "副总裁", "董事长", "副董事长", "董事", "总经理", "副总经理", "经理", "主席", "副主席", "总统", "副总统", "总理", "副总理", "部长", "副部长",
  "局长", "副局长", "市长", "副市长", "省长", "县长", "书记", "主任", "副主任", "院长", "校长", "教授", "副教授", "研究员", "分析师", "首席执行官", "执行官",
  "总监", "导演", "编剧", "制片人", "制片", "演员", "歌手", "作家", "编辑", "主编", "律师", "法官", "警官", "民警", "教练", "主教练", "助教", "队长", "球员",
  "主持人", "秘书长", "秘书", "专家", "学者", "工程师", "设计师", "创始人", "负责人", "发言人", "会长", "理事长", "行长", "老师", "医生", "CEO", "CFO", "CTO",
  "经纪人", "代言人", "管理员", "产品经理", "项目经理", "运维", "客服", "博士", "硕士", "学生", "策划", "总编", "画家", "艺术家", "作者", "司令", "将军", "大使", "领事", "议员", "州长", "首相", "国王", "王子", "公主",
]);

// jieba tags that end a noun run (verbs, particles, punctuation…); a run of these never joins an entity.
const RUN_TAGS = new Set(["n", "nr", "nrt", "nrfg", "ns", "nt", "nz", "x", "j", "eng", "vn", "an", "m", "l", "nl", "ng"]);

/** A token that may be part of a longer name: a noun-like tag and letters or digits (jieba tags punctuation `x` too). */
function isRunWord(t: TaggedWord): boolean {
  return RUN_TAGS.has(t.tag) && /^[\p{L}\p{N}]/u.test(t.word);
}

function isSurnameStart(w: string): boolean {
  return SURNAMES.has(w[0]!) || COMPOUND_SURNAMES.some((s) => w.startsWith(s));
}

function translitShare(w: string): number {
  let n = 0;
  for (const c of w) if (TRANSLIT.has(c)) n++;
  return n / w.length;
}

function endsWithAny(w: string, suffixes: readonly string[]): boolean {
  return suffixes.some((s) => w.length > s.length && w.endsWith(s));
}

/** Sentence spans (。！？!?；; and line breaks end a sentence). Offsets into `text`. */
export function splitSentences(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  const re = /[^。！？!?；;\n]+[。！？!?；;]*/g;
  for (const m of text.matchAll(re)) {
    let start = m.index!;
    let end = start + m[0].length;
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    // A period after a Latin letter run followed by a space also ends an English sentence.
    if (end > start) {
      const piece = text.slice(start, end);
      let last = 0;
      for (const e of piece.matchAll(/[.](?=\s+[A-Z])/g)) {
        out.push({ start: start + last, end: start + e.index! + 1 });
        last = e.index! + 1;
        while (last < piece.length && /\s/.test(piece[last]!)) last++;
      }
      out.push({ start: start + last, end });
    }
  }
  return out;
}

interface Tok extends TaggedWord {
  start: number;
  end: number;
}

function tagWithOffsets(sentence: string, base: number): Tok[] {
  const tagged = getJieba().tag(sentence, true);
  const out: Tok[] = [];
  let pos = 0;
  for (const t of tagged) {
    // Read once and copied by name: spreading jieba's native result objects ({ ...t }) cost 3-4×
    // the tagging itself (docs/bench-graph.md, "Session 12").
    const word = t.word;
    const at = sentence.indexOf(word, pos);
    if (at < 0) continue; // never seen; skip a token that does not line up rather than misplace it
    out.push({ word, tag: t.tag, start: base + at, end: base + at + word.length });
    pos = at + word.length;
  }
  return out;
}

/** The plain jieba part-of-speech baseline: nr* person, ns place, nt organization, nz other. */
export function extractJiebaBaseline(text: string): EntitySpan[] {
  const out: EntitySpan[] = [];
  for (const s of splitSentences(text)) {
    for (const t of tagWithOffsets(text.slice(s.start, s.end), s.start)) {
      const type = baselineType(t.tag);
      if (type) out.push({ start: t.start, end: t.end, type, text: t.word });
    }
  }
  return out;
}

function baselineType(tag: string): EntityType | null {
  if (tag === "nr" || tag === "nrt" || tag === "nrfg") return "person";
  if (tag === "ns") return "location";
  if (tag === "nt") return "organization";
  if (tag === "nz") return "other";
  return null;
}

const ENGLISH_FUNCTION = new Set(["The", "A", "An", "This", "That", "These", "Those", "It", "Its", "In", "On", "At", "For", "To", "Of", "And", "Or", "If", "When", "Then", "You", "Your", "We", "Our", "They", "Their", "He", "She", "His", "Her", "I", "My", "By", "With", "From", "As", "Is", "Are", "Be", "Do", "Does", "Use", "Open", "Click", "Select", "Choose", "Each", "Every", "All", "Some", "Any", "No", "Not", "After", "Before", "Once", "While", "Note", "Tip", "See", "Step", "Also", "Only", "Most", "More", "Up", "Single", "Every",
  // Imperatives that start the steps of a guide ("Register Yunjian as…", "Enforce SSO").
  "Register", "Enforce", "Enable", "Disable", "Paste", "Copy", "Test", "Set", "Add", "Remove", "Delete", "Create", "Install", "Configure", "Run", "Start", "Go", "Type", "Upload", "Download", "Drag", "Sign", "Log", "Invite", "Manage", "Read", "Write", "Change", "Changing", "Setting", "Without", "With", "Shortening", "Getting", "Keep", "Make", "Check", "Find", "Ask", "How", "What", "Why", "Where", "Who", "Which", "There", "Here", "Yes"]);
// Units, formats and protocol names: capitalized everywhere, never what a document is about.
const COMMON_ACRONYMS = new Set(["GB", "MB", "KB", "TB", "PB", "GHZ", "MHZ", "CPU", "GPU", "RAM", "SSD", "URL", "URI", "IP", "ID", "IDS", "API", "APIS", "HTTP", "HTTPS", "PDF", "CSV", "JSON", "XML", "HTML", "SQL", "OK", "FAQ", "UI", "UX", "PS", "AM", "PM", "TCP", "UDP", "DNS", "USB", "OS", "PC", "NO", "VS", "ETC", "EG", "IE", "RMB", "USD", "CNY", "EUR", "Q1", "Q2", "Q3", "Q4"]);
const ENGLISH_JOINERS = new Set(["of", "and", "for", "de", "van", "von", "&"]);
const ORG_WORDS = /\b(?:Inc|Ltd|LLC|Corp|Corporation|Company|Co|Group|University|Institute|Foundation|Association|Bank|Agency|Ministry|Department|Committee|Council|Team|Lab|Labs)\.?$/;
const LOC_WORDS = /\b(?:City|Province|County|Street|Road|Avenue|Island|River|Lake|Mountain|Park|Airport|Station)$/;

/** English proper-noun phrases: runs of capitalized words (with of/and inside), acronyms and CamelCase names. */
export function extractEnglish(text: string, base = 0): EntitySpan[] {
  const out: EntitySpan[] = [];
  const words = [...text.matchAll(/[A-Za-z][A-Za-z0-9]*(?:[-'’][A-Za-z0-9]+)*(?:\.\d+)*|&/g)];
  let i = 0;
  while (i < words.length) {
    const w = words[i]![0];
    if (!isCapitalized(w)) {
      i++;
      continue;
    }
    let j = i;
    let last = i;
    while (j + 1 < words.length) {
      const next = words[j + 1]!;
      const gap = text.slice(words[j]!.index! + words[j]![0].length, next.index!);
      if (!/^[ ]?$/.test(gap) && gap !== "-") break;
      if (isCapitalized(next[0])) {
        j++;
        last = j;
      } else if (ENGLISH_JOINERS.has(next[0]) && j + 2 < words.length && isCapitalized(words[j + 2]![0])) j++;
      else break;
    }
    // A first word that is an ordinary word (The, Register…) is not part of the name.
    let first = i;
    while (first <= last && ENGLISH_FUNCTION.has(words[first]![0])) first++;
    while (first <= last && ENGLISH_JOINERS.has(words[first]![0])) first++;
    if (first <= last) {
      const start = words[first]!.index!;
      const end = words[last]!.index! + words[last]![0].length;
      const phrase = text.slice(start, end);
      const single = first === last;
      // A lone capitalized word (at a sentence start usually an ordinary word: "Upload") is only a candidate.
      const keep = !COMMON_ACRONYMS.has(phrase.toUpperCase());
      if (keep && isUsefulName(phrase)) {
        const type: EntityType = ORG_WORDS.test(phrase) ? "organization" : LOC_WORDS.test(phrase) ? "location" : "other";
        // A lone capitalized word (a heading's "Billing", a product's "Yunjian") is a candidate.
        out.push({ start: base + start, end: base + end, type, text: phrase, ...(single && !isAcronymOrCamel(phrase) ? { weak: true } : {}) });
      }
    }
    i = Math.max(last, i) + 1;
  }
  return out;
}

function isCapitalized(w: string): boolean {
  return /^[A-Z]/.test(w) && w !== "I";
}

function isAcronymOrCamel(w: string): boolean {
  return /^[A-Z0-9]{2,}$/.test(w) || /^[A-Z][a-z]+[A-Z]/.test(w) || /[a-z][A-Z]/.test(w) || /\d/.test(w);
}

/** Full-width ASCII (ＡＢＣ１２３) and the ideographic space as ASCII, one character for one, so offsets hold. */
function foldWidth(s: string): string {
  return s.replace(/[\uff01-\uff5e\u3000]/g, (c) => (c === "\u3000" ? " " : String.fromCharCode(c.charCodeAt(0) - 0xfee0)));
}

/** Entities in one text (a chunk), with offsets into it. Overlapping spans: the longer wins. */
export function extractEntities(input: string, rules: ExtractRules = DEFAULT_RULES): EntitySpan[] {
  // Code (fenced blocks, `inline`) names commands and keys, not entities; blanked with spaces so
  // offsets stay those of the input.
  const text = foldWidth(input).replace(/```[\s\S]*?(?:```|$)|`[^`\n]*`/g, (m) => " ".repeat(m.length));
  const found: EntitySpan[] = [];
  for (const s of splitSentences(text)) {
    const sentence = text.slice(s.start, s.end);
    if (!CJK_RE.test(sentence)) {
      if (rules.latinNames) found.push(...extractEnglish(sentence, s.start));
      continue;
    }
    found.push(...extractChineseSentence(sentence, s.start, rules));
  }
  return resolveOverlaps(found);
}

function extractChineseSentence(sentence: string, base: number, rules: ExtractRules): EntitySpan[] {
  const out: EntitySpan[] = [];
  if (rules.bookTitles) {
    for (const m of sentence.matchAll(/《([^《》\n]{1,40})》/g)) {
      out.push({ start: base + m.index!, end: base + m.index! + m[0].length, type: "work", text: m[0] });
    }
  }
  if (rules.productNames) {
    // 「云笺」 “云笺” quoted short names, and a name followed by a version: 云笺 3.2 / Yunjian v2.
    for (const m of sentence.matchAll(/[「“"]([\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9 ·-]{0,14})[」”"]/g)) {
      const inner = m[1]!;
      if (isUsefulName(inner) && !/[，。]/.test(inner)) out.push({ start: base + m.index! + 1, end: base + m.index! + 1 + inner.length, type: "product", text: inner, weak: true });
    }
  }
  if (rules.latinNames) {
    // Latin phrases of several words inside Chinese text ("Yunjian Cloud 支持…"): jieba tags each word apart.
    for (const e of extractEnglish(sentence, base)) if (/\s/.test(e.text)) out.push(e);
  }
  const toks = tagWithOffsets(sentence, base);
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const w = t.word;
    // Organization: a run of nouns/places ending in an organization suffix.
    if (rules.orgSuffix && (ORG_SUFFIX_WORDS.has(w) || (CJK_ONLY_RE.test(w) && endsWithAny(w, ORG_SUFFIXES) && (t.tag === "nt" || t.tag === "x" || t.tag === "n" || t.tag === "nz")))) {
      let k = i;
      while (k - 1 >= 0 && i - (k - 1) <= 4 && isRunWord(toks[k - 1]!) && toks[k - 1]!.end === toks[k]!.start && !POSITIONS.has(toks[k - 1]!.word) && toks[k - 1]!.tag !== "m") k--;
      if (k < i || w.length >= 3) {
        const start = toks[k]!.start;
        const text = sentence.slice(start - base, t.end - base);
        if (text.length >= 2 && isUsefulName(text)) out.push({ start, end: t.end, type: "organization", text });
        continue;
      }
    }
    // Location: consecutive places, optionally with numbers and place suffixes (北京市东城区王府井大街218号).
    if (rules.locationRuns && t.tag === "ns") {
      let k = i;
      while (k + 1 < toks.length && toks[k + 1]!.start === toks[k]!.end) {
        const n = toks[k + 1]!;
        if (n.tag === "ns" || LOC_SUFFIX_WORDS.has(n.word) || (CJK_ONLY_RE.test(n.word) && endsWithAny(n.word, LOC_SUFFIXES))) k++;
        else if (n.tag === "m" && k + 2 < toks.length && LOC_SUFFIX_WORDS.has(toks[k + 2]!.word)) k += 2;
        else break;
      }
      if (k > i) {
        // A place followed directly by an organization suffix is handled as an organization above.
        const next = toks[k + 1];
        if (!(rules.orgSuffix && next && ORG_SUFFIX_WORDS.has(next.word))) {
          out.push({ start: t.start, end: toks[k]!.end, type: "location", text: sentence.slice(t.start - base, toks[k]!.end - base) });
          i = k;
          continue;
        }
      }
    }
    const type = baselineType(t.tag);
    if (type) {
      // jieba's single-character "names" are mostly surnames or noise.
      if (w.length >= 2) out.push({ start: t.start, end: t.end, type, text: w });
      continue;
    }
    if (rules.unknownWords && t.tag === "x" && CJK_ONLY_RE.test(w) && w.length >= 2 && w.length <= 8) {
      const type = classifyUnknown(w);
      out.push(type ? { start: t.start, end: t.end, type, text: w } : { start: t.start, end: t.end, type: "product", text: w, weak: true });
      continue;
    }
    if (rules.positions && POSITIONS.has(w)) {
      out.push({ start: t.start, end: t.end, type: "position", text: w });
      continue;
    }
    // Lower-case Latin words (config, yaml) are commands and keys far more often than names.
    if (rules.latinNames && t.tag === "eng" && /[A-Z]/.test(w) && w.length >= 2 && !COMMON_ACRONYMS.has(w.toUpperCase())) {
      const type: EntityType = /^[A-Z][a-z]+$/.test(w) ? "person" : "other";
      out.push({ start: t.start, end: t.end, type, text: w });
    }
  }
  return out;
}

// An unknown word that is neither a name, an organization nor a place is only a candidate (weak):
// most are ordinary words jieba's dictionary lacks (measured: keeping every one as an entity
// cost 0.05 micro F1), but a repeated one is usually the document's own product or project name.
function classifyUnknown(w: string): EntityType | null {
  if (endsWithAny(w, ORG_SUFFIXES)) return "organization";
  if (endsWithAny(w, LOC_SUFFIXES)) return "location";
  if (w.length <= 3 && isSurnameStart(w)) return "person";
  if (w.length >= 3 && translitShare(w) >= 0.6) return "person";
  return null;
}

/** Keeps the longest of overlapping spans (ties: the earlier one). */
export function resolveOverlaps(spans: EntitySpan[]): EntitySpan[] {
  const sorted = [...spans].sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const taken: EntitySpan[] = [];
  for (const s of sorted) {
    if (taken.some((t) => s.start < t.end && t.start < s.end)) continue;
    taken.push(s);
  }
  return taken.sort((a, b) => a.start - b.start);
}

/** Entities of each sentence of a text: what co-occurrence relations are built from. */
export function extractBySentence(text: string, rules: ExtractRules = DEFAULT_RULES): { sentence: SentenceSpan; entities: EntitySpan[] }[] {
  const entities = extractEntities(text, rules);
  return splitSentences(text).map((sentence) => ({
    sentence,
    entities: entities.filter((e) => e.start >= sentence.start && e.end <= sentence.end && isUsefulName(displayName(e.text))),
  }));
}
