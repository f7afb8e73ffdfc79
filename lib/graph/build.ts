// A file's graph from its chunks: entities merged by normalized name (aliases kept), one mention
// row per entity and chunk, co-occurrence relations per sentence with one support row per
// relation and chunk, pruned per file (finish()). Pure: the storage writes what this returns.
import { DEFAULT_RULES, extractBySentence, splitSentences, type EntityType, type ExtractRules } from "./extract-offline";
import { displayName, isUsefulName, normalizeName } from "./normalize";

/** Co-occurrence pairs per sentence grow quadratically: a sentence listing 40 names links only its first 8 (28 pairs; 12 gave 66 and most of the graph's rows on the cmrc2018 KB, docs/bench-graph.md). */
const MAX_ENTITIES_PER_SENTENCE = 8;
export const CO_OCCURS = "co_occurs";

export interface ChunkText {
  id: string;
  content: string;
}

export interface BuiltEntity {
  norm: string;
  name: string;
  type: EntityType;
  aliases: string[];
  description: string;
}

export interface BuiltMention {
  norm: string;
  chunkId: string;
  /** The first occurrence in the chunk (its surface text is the chunk's content there). */
  start: number;
  end: number;
  count: number;
}

export interface BuiltRelation {
  /** For co-occurrence: source norm < target norm (undirected). */
  source: string;
  target: string;
  relation: string;
  description: string;
  supports: { chunkId: string; start: number; end: number; count: number }[];
}

export interface BuiltGraph {
  /** Every chunk the graph was built from (with or without entities), in the order added. */
  chunkIds: string[];
  entities: BuiltEntity[];
  mentions: BuiltMention[];
  relations: BuiltRelation[];
  sentenceCount: number;
}

/** Extra entities and relations from a model for one chunk (already validated). */
export interface ModelChunkResult {
  chunkId: string;
  entities: { name: string; type: EntityType; description: string }[];
  relations: { source: string; target: string; relation: string; description: string }[];
}

/** A candidate (weak) name becomes an entity once the file names it this often. */
export const MIN_CANDIDATE_OCCURRENCES = 2;

/**
 * What a file keeps of its co-occurrence pairs (docs/bench-graph.md, "Pruning"): every pair the
 * file names in at least MIN_PAIR_SENTENCES sentences, and each entity's strongest pairs (by the
 * query's weight on the file's counts), as many as the file mentions the entity (its evidence)
 * and at most MAX_PAIRS_PER_ENTITY (the Graph tab's default neighbourhood). On the cmrc2018 corpus 83 % of
 * the pairs occur once; they were most of the graph's rows and write time. Keeping one per
 * entity lost the handbook's 云笺 → 马来西亚 / 越南 (PMI favours a rare name's rare partners).
 */
export const MIN_PAIR_SENTENCES = 2;
export const MAX_PAIRS_PER_ENTITY = 20;

class EntityAcc {
  readonly names = new Map<string, number>();
  readonly types = new Map<EntityType, number>();
  description = "";
  strong = 0;
  weak = 0;
  add(name: string, type: EntityType, weak = false) {
    this.names.set(name, (this.names.get(name) ?? 0) + 1);
    // A rule's or the model's type outranks a candidate's guess.
    this.types.set(type, (this.types.get(type) ?? 0) + (weak ? 0.5 : 1));
    if (weak) this.weak++;
    else this.strong++;
  }
  get admitted(): boolean {
    return this.strong > 0 || this.weak >= MIN_CANDIDATE_OCCURRENCES;
  }
  finish(norm: string): BuiltEntity {
    const byCount = [...this.names.entries()].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1));
    const type = [...this.types.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    const name = byCount[0]![0];
    return { norm, name, type, aliases: byCount.slice(1).map(([n]) => n).slice(0, 20), description: this.description };
  }
}

/** Accumulates a file's graph chunk by chunk (the stage yields to the event loop between chunks). */
export class GraphBuilder {
  private readonly entities = new Map<string, EntityAcc>();
  private readonly mentions = new Map<string, BuiltMention>();
  private readonly relations = new Map<string, BuiltRelation>();
  private readonly contents = new Map<string, string>();
  private sentenceCount = 0;

  constructor(private readonly rules: ExtractRules = DEFAULT_RULES) {}

  private noteEntity(name: string, type: EntityType, weak = false): string {
    const norm = normalizeName(name);
    if (!norm) return norm;
    let acc = this.entities.get(norm);
    if (!acc) this.entities.set(norm, (acc = new EntityAcc()));
    acc.add(displayName(name), type, weak);
    return norm;
  }

  private support(source: string, target: string, relation: string, description: string, chunkId: string, start: number, end: number): void {
    const key = `${source}\u0000${target}\u0000${relation}`;
    let r = this.relations.get(key);
    if (!r) this.relations.set(key, (r = { source, target, relation, description, supports: [] }));
    const s = r.supports.find((x) => x.chunkId === chunkId);
    if (s) s.count++;
    else r.supports.push({ chunkId, start, end, count: 1 });
  }

  /** The offline extractor over one chunk: entities per sentence, co-occurrence within it. */
  addChunk(chunk: ChunkText): void {
    this.contents.set(chunk.id, chunk.content);
    for (const { sentence, entities: found } of extractBySentence(chunk.content, this.rules)) {
      this.sentenceCount++;
      const norms: string[] = [];
      for (const e of found) {
        const norm = this.noteEntity(e.text, e.type, e.weak);
        if (!norm) continue;
        const key = `${norm}\u0000${chunk.id}`;
        const m = this.mentions.get(key);
        if (m) m.count++;
        else this.mentions.set(key, { norm, chunkId: chunk.id, start: e.start, end: e.end, count: 1 });
        if (!norms.includes(norm)) norms.push(norm);
      }
      const linked = norms.slice(0, MAX_ENTITIES_PER_SENTENCE);
      for (let i = 0; i < linked.length; i++) {
        for (let j = i + 1; j < linked.length; j++) {
          const [a, b] = linked[i]! < linked[j]! ? [linked[i]!, linked[j]!] : [linked[j]!, linked[i]!];
          this.support(a, b, CO_OCCURS, "", chunk.id, sentence.start, sentence.end);
        }
      }
    }
  }

  /**
   * A model's entities and relations for a chunk (validated) join the same per-name merge. A
   * relation is kept only when the chunk mentions both ends; its support is the sentence that
   * holds the source's name.
   */
  addModelResult(res: ModelChunkResult): void {
    const content = this.contents.get(res.chunkId);
    if (content === undefined) return;
    const locate = (name: string) => {
      const at = content.indexOf(name);
      if (at < 0) return { start: 0, end: Math.min(content.length, 200) };
      const s = splitSentences(content).find((x) => x.start <= at && at < x.end);
      return s ?? { start: at, end: at + name.length };
    };
    for (const e of res.entities) {
      if (!isUsefulName(displayName(e.name))) continue;
      const norm = this.noteEntity(e.name, e.type);
      if (!norm) continue;
      const acc = this.entities.get(norm)!;
      if (!acc.description && e.description) acc.description = e.description.slice(0, 500);
      const key = `${norm}\u0000${res.chunkId}`;
      if (!this.mentions.has(key)) {
        const at = content.indexOf(e.name);
        const span = at >= 0 ? { start: at, end: at + e.name.length } : { start: 0, end: 0 };
        this.mentions.set(key, { norm, chunkId: res.chunkId, start: span.start, end: span.end, count: 1 });
      }
    }
    for (const r of res.relations) {
      const s = normalizeName(r.source);
      const t = normalizeName(r.target);
      if (!s || !t || s === t) continue;
      if (!this.mentions.has(`${s}\u0000${res.chunkId}`) || !this.mentions.has(`${t}\u0000${res.chunkId}`)) continue;
      const label = r.relation.trim().slice(0, 60) || CO_OCCURS;
      const at = locate(r.source);
      this.support(s, t, label, r.description.slice(0, 500), res.chunkId, at.start, at.end);
    }
  }

  /**
   * The file's graph, pruned file by file (so a file's share of the KB's graph never depends on
   * the other files, and reparse or delete stays exact): co-occurrence pairs as MIN_PAIR_SENTENCES
   * and MAX_PAIRS_PER_ENTITY say (a model's relation is a statement and always kept). Entities
   * stay, related or not: dropping those named once without a relation saved 2 % of the entities
   * on cmrc2018 and lost a guide's title and its one mention of CIDR (lib/graph/graph.test.ts).
   */
  finish(): BuiltGraph {
    const admitted = (norm: string) => this.entities.get(norm)?.admitted === true;
    const mentionsOf = new Map<string, number>();
    for (const m of this.mentions.values()) if (admitted(m.norm)) mentionsOf.set(m.norm, (mentionsOf.get(m.norm) ?? 0) + m.count);
    const candidates = [...this.relations.values()].filter((r) => admitted(r.source) && admitted(r.target));
    const sentences = (r: BuiltRelation) => r.supports.reduce((n, s) => n + s.count, 0);
    // The file-local form of the query's weight (count × ln(1 + N·c_ab / (c_a·c_b))).
    const weight = (r: BuiltRelation) => {
      const c = sentences(r);
      return c * Math.log(1 + (this.sentenceCount * c) / Math.max(1, (mentionsOf.get(r.source) ?? 1) * (mentionsOf.get(r.target) ?? 1)));
    };
    const keep = new Set<BuiltRelation>();
    const byEntity = new Map<string, { r: BuiltRelation; w: number }[]>();
    for (const r of candidates) {
      if (r.relation !== CO_OCCURS || sentences(r) >= MIN_PAIR_SENTENCES) keep.add(r);
      const w = weight(r);
      for (const e of [r.source, r.target]) {
        const list = byEntity.get(e);
        if (list) list.push({ r, w });
        else byEntity.set(e, [{ r, w }]);
      }
    }
    const tie = (a: BuiltRelation, b: BuiltRelation) => (a.source + a.target < b.source + b.target ? -1 : a.source + a.target > b.source + b.target ? 1 : 0);
    for (const [e, list] of byEntity) {
      list.sort((a, b) => b.w - a.w || tie(a.r, b.r));
      const k = Math.min(MAX_PAIRS_PER_ENTITY, Math.max(1, mentionsOf.get(e) ?? 1));
      for (const x of list.slice(0, k)) keep.add(x.r);
    }
    return {
      chunkIds: [...this.contents.keys()],
      entities: [...this.entities.entries()].filter(([norm]) => admitted(norm)).map(([norm, acc]) => acc.finish(norm)),
      mentions: [...this.mentions.values()].filter((m) => admitted(m.norm)),
      relations: candidates.filter((r) => keep.has(r)),
      sentenceCount: this.sentenceCount,
    };
  }
}

/** The whole file at once (tests, the benchmark). */
export function buildFileGraph(chunks: readonly ChunkText[], opts: { rules?: ExtractRules; model?: readonly ModelChunkResult[] } = {}): BuiltGraph {
  const b = new GraphBuilder(opts.rules);
  for (const c of chunks) b.addChunk(c);
  for (const m of opts.model ?? []) b.addModelResult(m);
  return b.finish();
}
