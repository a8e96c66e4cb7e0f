/**
 * USE-lite's SentencePiece tokenizer, the same pieces without its copies:
 * @energetic-ai/embeddings 0.2.0 copies the rest of the text at every
 * character to look its pieces up (~0.7 ms and ~0.5 MB of garbage for a
 * 450-character window, the model Worker's largest cost outside the model),
 * where walking the trie from each character in place finds the same pieces.
 * Pure: knows the library's vocabulary and trie, nothing of Workers.
 */

/** A node of the library's vocabulary trie: `word` is [symbols, score, vocabulary index]. */
export interface TrieNode {
  children: Record<string, TrieNode>;
  end: boolean;
  word: [string[], number, number];
}

/** What the library's tokenizer holds: its vocabulary (piece, score) and the trie over it. */
export interface PieceVocabulary {
  vocabulary: [string, number][];
  trie: { root: TrieNode };
}

/** The tokenizer's word separator, standing for a space and the text's start. */
const SEPARATOR = "\u2581";

/**
 * The vocabulary indices of `text`'s pieces, exactly as the library's
 * `Tokenizer.encode` makes them: the best-scoring segmentation (of two
 * pieces ending alike and scoring alike, the shorter), an unknown character as index 0, runs of unknowns merged, and
 * the same walk back from the end by each piece's length in the vocabulary.
 *
 * @example
 * ```ts
 * const ids = encodePieces(model.tokenizer, "where did I park?");
 * ```
 */
export function encodePieces(tokenizer: PieceVocabulary, text: string): number[] {
  const normalized = text.normalize("NFKC");
  const input = normalized.length > 0 ? SEPARATOR + normalized.replaceAll(" ", SEPARATOR) : "";
  const symbols = [...input];
  const n = symbols.length;
  // best[i]: the score of the best pieces for the first i symbols (0: none yet); words[i]: its last piece.
  const best = new Float64Array(n + 1);
  const words = new Int32Array(n + 1);
  const offer = (end: number, score: number, index: number) => {
    if (best[end] === 0 || score >= best[end]) {
      best[end] = score;
      words[end] = index;
    }
  };
  for (let start = 0; start < n; start++) {
    // Pieces are offered by start, then length: the order the library scores them in.
    let node: TrieNode | undefined = tokenizer.trie.root.children[symbols[start]];
    let found = false;
    for (let at = start; at < n && node; at++) {
      if (node.end) {
        found = true;
        offer(at + 1, node.word[1] + best[start], node.word[2]);
      }
      node = node.children[symbols[at + 1]];
    }
    if (!found) offer(start + 1, best[start], 0);
  }
  const pieces: number[] = [];
  // The library steps back by the piece's length in UTF-16 units; so must this, to agree.
  for (let end = n; end > 0; end -= tokenizer.vocabulary[words[end]][0].length) {
    pieces.push(words[end]);
  }
  const merged: number[] = [];
  let previousUnknown = false;
  for (const id of pieces) {
    if (!(previousUnknown && id === 0)) merged.push(id);
    previousUnknown = id === 0;
  }
  return merged.reverse();
}
