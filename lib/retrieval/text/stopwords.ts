// Stop words dropped by the lexical tokenizer. Pure data; shared by the indexer, the query side
// and the benchmark so every path produces identical tokens.

// English: the classic SMART/NLTK-style core list (function words only, no content words).
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren't as at be because been before
being below between both but by can cannot could couldn't did didn't do does doesn't doing don't
down during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's
her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it
it's its itself let's me more most mustn't my myself no nor not of off on once only or other ought
our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some such
than that that's the their theirs them themselves then there there's these they they'd they'll
they're they've this those through to too under until up very was wasn't we we'd we'll we're we've
were weren't what what's when when's where where's which while who who's whom why why's with won't
would wouldn't you you'd you'll you're you've your yours yourself yourselves s t d ll m re ve
also just can will whose whether many much please`
    .split(/\s+/)
    .filter(Boolean),
);

// Chinese: particles, pronouns, conjunctions, prepositions and question words. Question words
// matter: they fill questions but never the passages that answer them, and every unmatched query
// term lowers the calibrated score of a real match (calibrate.ts divides by the query's idf mass).
export const CHINESE_STOP_WORDS: ReadonlySet<string> = new Set(
  `的 了 是 在 和 与 及 或 也 都 就 而 被 把 将 这 那 之 其 为 以 于 对 从 由 等 着 过 吗 呢 吧 啊
呀 么 嘛 哦 个 我 你 他 她 它 们 我们 你们 他们 她们 它们 这个 那个 这些 那些 这样 那样 这种 那种
什么 怎么 怎样 怎么样 如何 哪 哪些 哪个 哪里 哪儿 谁 多少 几 是否 是不是 有没有 为什么 为何 以及 并
但 但是 因为 所以 因此 如果 虽然 然而 而且 并且 还 又 很 最 更 已 已经 会 能 可 可以 要 该 此 各 每
所 得 地 之一 其中 即 则 若 乃 亦 与其 以便 以至 以后 以前 之后 之前 时 时候 当 向 往 给 跟 同
让 使 比 比较 非常 十分 一些 一种 一样 一直 一般 有些 有的 没有 不 不是 所有 其他 其它 自己 只 只是
就是 还是 或者 还有 等等 通过 进行 称为 叫做 属于 哪一 哪位 哪年 何 何时 何地
有 多大 多久 多长 多长时间 多高 多远 多重 多深 多宽 多快 多早 多晚 多少次 多少钱 几个 几种 几次 几年
哪种 哪家 哪国 哪天 哪次 请问 一下 啥 为啥 咋 咋样 干嘛 怎么办 什么样 能否 可否 是否是 到底 究竟`
    .split(/\s+/)
    .filter(Boolean),
);

// jieba often splits "多 + adjective" questions (有多大 → 有/多/大, 多远 → 多/远): the pair is a
// question ("how big", "how far"), never content, so both characters are dropped when they come
// out as two single-character pieces. Same for "哪/几 + measure word" (哪种 → 哪/种).
export const CHINESE_QUESTION_PAIRS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["多", new Set("大少久长高远重深宽厚快早晚".split(""))],
  ["哪", new Set("种个些里年位天次家国条件类边".split(""))],
  ["几", new Set("个种次年天位件条家类".split(""))],
]);
